// Module `LocalAuthentication`: LAContext over a pluggable authenticator (issue 7, in progress).
