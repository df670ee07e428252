import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';

/** Fallback for machines with Docker and no local services. Containers live for the test process. */
const started: StartedTestContainer[] = [];

export async function startPostgres(): Promise<string> {
  const c = await new GenericContainer('postgres:15-alpine')
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  started.push(c);
  return `postgres://postgres@${c.getHost()}:${c.getMappedPort(5432)}/postgres`;
}

export async function startRabbit(): Promise<{ amqpUrl: string; managementUrl: string }> {
  const c = await new GenericContainer('rabbitmq:3.13-management-alpine')
    .withExposedPorts(5672, 15672)
    .withWaitStrategy(Wait.forLogMessage(/Server startup complete/))
    .start();
  started.push(c);
  return {
    amqpUrl: `amqp://guest:guest@${c.getHost()}:${c.getMappedPort(5672)}`,
    managementUrl: `http://guest:guest@${c.getHost()}:${c.getMappedPort(15672)}`,
  };
}
