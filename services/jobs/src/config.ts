import { Joi, loadConfig, serviceEnv, type ServiceEnv } from '@mf/config';

export type JobsConfig = ServiceEnv;

const schema = Joi.object<JobsConfig>(serviceEnv(8082));

export function loadJobsConfig(env: NodeJS.ProcessEnv = process.env): JobsConfig {
  return loadConfig(schema, env);
}
