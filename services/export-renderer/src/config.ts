import { Joi, loadConfig, serviceEnv, type ServiceEnv } from '@mf/config';

export type ExportRendererConfig = ServiceEnv;

const schema = Joi.object<ExportRendererConfig>(serviceEnv(8084));

export function loadExportRendererConfig(env: NodeJS.ProcessEnv = process.env): ExportRendererConfig {
  return loadConfig(schema, env);
}
