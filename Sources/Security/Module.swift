// Module `Security`: Apple-compatible SecItem API over Latchkey (issue 7, in progress).
