import { Joi, loadConfig, serviceEnv, type ServiceEnv } from '@mf/config';

export type WebhookDispatcherConfig = ServiceEnv;

const schema = Joi.object<WebhookDispatcherConfig>(serviceEnv(8085));

export function loadWebhookDispatcherConfig(env: NodeJS.ProcessEnv = process.env): WebhookDispatcherConfig {
  return loadConfig(schema, env);
}
