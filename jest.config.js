// Three tiers (see README "Tests"): unit specs beside the code, integration tests against the real
// Postgres and RabbitMQ in each package's test/, end-to-end tests of the real fleet in test-e2e/.
const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
  ],
};
// In the repository the SDK is tested from its sources; its published build (sdk/dist) is tested as
// a tarball in test-e2e/sdk/package.e2e.test.ts.
const moduleNameMapper = { '^@mediaforge/sdk$': '<rootDir>/sdk/src/index.ts' };
const common = { transform, moduleNameMapper, testEnvironment: 'node', moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
  testSequencer: '<rootDir>/scripts/jest-sequencer.js',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/{libs,services}/*/src/**/*.test.ts',
        '<rootDir>/sdk/src/**/*.test.ts',
        '<rootDir>/scripts/generate/*.test.ts',
        '<rootDir>/scripts/ci/*.test.ts',
      ],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: [
        '<rootDir>/{libs,services}/*/test/**/*.test.ts',
        '<rootDir>/deploy/test/**/*.test.ts',
        '<rootDir>/scripts/build/test/**/*.test.ts',
      ],
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/jest-integration-timeout.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test-e2e/**/*.e2e.test.ts'],
      setupFilesAfterEnv: [
        '<rootDir>/test-e2e/support/timeouts.ts',
        '<rootDir>/test-e2e/support/admin-batch-cleanup.ts',
      ],
      // The production build (rebuilt when stale) and the pool of shared fleets (test-e2e/support/pool.ts).
      globalSetup: '<rootDir>/test-e2e/support/global-setup.ts',
      globalTeardown: '<rootDir>/test-e2e/support/global-teardown.ts',
    },
    // npm run test:cluster only (scripts/test-cluster.sh): a RabbitMQ cluster of three nodes, minutes long.
    ...(process.env.MF_CLUSTER_TEST === '1'
      ? [
          {
            ...common,
            displayName: 'cluster',
            testMatch: ['<rootDir>/test-e2e/cluster/*.cluster.test.ts'],
            setupFilesAfterEnv: [
              '<rootDir>/test-e2e/support/timeouts.ts',
              '<rootDir>/test-e2e/support/admin-batch-cleanup.ts',
            ],
            globalSetup: '<rootDir>/test-e2e/support/global-setup.ts',
            globalTeardown: '<rootDir>/test-e2e/support/global-teardown.ts',
          },
        ]
      : []),
  ],
};
