// End-to-end tests start processes and wait on real I/O: jest's 5 s default is too short.
jest.setTimeout(120_000);
