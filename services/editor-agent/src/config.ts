import { Joi, loadConfig, serviceEnv, type ServiceEnv } from '@mf/config';

export type EditorAgentConfig = ServiceEnv;

const schema = Joi.object<EditorAgentConfig>(serviceEnv(8083));

export function loadEditorAgentConfig(env: NodeJS.ProcessEnv = process.env): EditorAgentConfig {
  return loadConfig(schema, env);
}
