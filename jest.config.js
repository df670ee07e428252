// Three tiers (see README "Tests"): unit specs beside the code, integration tests against the real
// Postgres and RabbitMQ in each package's test/, end-to-end tests of the real fleet in test-e2e/.
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
};
const common = { transform, testEnvironment: 'node', moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{libs,services}/*/src/**/*.test.ts', '<rootDir>/sdk/src/**/*.test.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/{libs,services}/*/test/**/*.test.ts', '<rootDir>/deploy/test/**/*.test.ts'], setupFilesAfterEnv: ['<rootDir>/libs/testing/src/jest-integration-timeout.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test-e2e/**/*.e2e.test.ts'], setupFilesAfterEnv: ['<rootDir>/test-e2e/support/timeouts.ts'] },
  ],
};
