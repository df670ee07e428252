import { createRequire } from 'node:module';
import type { InstrumentationBase } from '@opentelemetry/instrumentation';

/** A module as an instrumentation names it ('pg', 'amqplib/lib/channel_model.js'), as loaded in this process. */
export interface LoadedModule {
  exports: unknown;
  /** The package's version (undefined for Node's own modules). */
  version?: string;
}

/**
 * Applies an instrumentation's patches to modules already loaded. Instrumentations patch a module
 * from a require hook as it loads; in the production build most modules are inlined in the bundle
 * and never pass through require, so their patches are applied here instead, to the very objects
 * the bundle uses (getModuleDefinitions is the API OpenTelemetry keeps for this). Every patch
 * unwraps before it wraps (or guards itself), so a module the hook patched too is patched once.
 */
export function patchLoaded(instrumentation: InstrumentationBase, modules: Record<string, LoadedModule>): string[] {
  const patched: string[] = [];
  for (const definition of instrumentation.getModuleDefinitions()) {
    const main = modules[definition.name];
    if (main && definition.patch) {
      definition.patch(main.exports, main.version);
      patched.push(definition.name);
    }
    for (const file of definition.files) {
      const loaded = modules[file.name];
      if (!loaded) continue;
      file.patch(loaded.exports, loaded.version);
      patched.push(file.name);
    }
  }
  return patched;
}

/**
 * amqplib's internal files, which its instrumentation patches. amqplib stays outside the bundle
 * (its package exports hide these files from a bundler), so they are reached from its entry point.
 */
export function amqplibFiles(): Record<string, LoadedModule & { version: string }> {
  const fromAmqplib = createRequire(require.resolve('amqplib'));
  const version = (fromAmqplib('./package.json') as { version: string }).version;
  return {
    'amqplib/lib/channel_model.js': { exports: fromAmqplib('./lib/channel_model.js'), version },
    'amqplib/lib/connect.js': { exports: fromAmqplib('./lib/connect.js'), version },
  };
}
