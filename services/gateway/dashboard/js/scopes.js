// Scopes a key can have (docs/dashboard-api.md); models:read is on every key.
export const SCOPES = [
  { name: 'models:read', description: 'List the models (always on)', always: true },
  { name: 'video:write', description: 'Generate videos' },
  { name: 'image:write', description: 'Generate images' },
  { name: 'jobs:read', description: 'Read jobs' },
  { name: 'video-editor:write', description: 'Create, instruct and export editor projects' },
  { name: 'video-editor:read', description: 'List and read editor projects' },
];
