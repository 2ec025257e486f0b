// Module `LatchkeyTesting`: temporary and in-memory keychains for tests (issue 6, in progress).
