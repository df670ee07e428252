// Integration tests talk to the real Postgres and RabbitMQ: jest's 5 s default is too short on a loaded machine.
jest.setTimeout(30_000);
