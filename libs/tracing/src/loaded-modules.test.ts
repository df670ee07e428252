import http from 'node:http';
import { isWrapped } from '@opentelemetry/instrumentation';
import { AmqplibInstrumentation } from '@opentelemetry/instrumentation-amqplib';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import pg from 'pg';
import expressPackage from 'express/package.json';
import pgPackage from 'pg/package.json';
import semver from 'semver';
import { amqplibFiles, patchLoaded } from './loaded-modules';

// Built disabled: no require hook is installed, so only patchLoaded can patch.
const off = { enabled: false };

describe('patchLoaded', () => {
  // The prototype's query as a value, not a call: what a patch replaces.
  const query = (): unknown => Object.getOwnPropertyDescriptor(pg.Client.prototype, 'query')?.value;

  it('patches the very module objects given, as a bundle holds them', () => {
    const instrumentation = new PgInstrumentation(off);
    expect(isWrapped(query())).toBe(false);
    expect(patchLoaded(instrumentation, { pg: { exports: pg, version: pgPackage.version } })).toEqual(['pg']);
    expect(isWrapped(query())).toBe(true);
    // Again (a require hook did it too): still one wrapper, not two.
    patchLoaded(instrumentation, { pg: { exports: pg, version: pgPackage.version } });
    expect(isWrapped((query() as { __original: unknown }).__original)).toBe(false);
    instrumentation.getModuleDefinitions()[0].unpatch?.(pg);
  });

  it('leaves alone what the instrumentation does not name', () => {
    expect(patchLoaded(new HttpInstrumentation(off), { pg: { exports: pg } })).toEqual([]);
    expect(isWrapped(Object.getOwnPropertyDescriptor(http, 'request')?.value)).toBe(false);
  });

  it.each([
    ['pg', () => new PgInstrumentation(off), pgPackage.version],
    ['express', () => new ExpressInstrumentation(off), expressPackage.version],
    [
      'amqplib/lib/channel_model.js',
      () => new AmqplibInstrumentation(off),
      amqplibFiles()['amqplib/lib/channel_model.js'].version,
    ],
  ])("supports the installed %s (an upgrade past the instrumentation's range fails here)", (name, make, version) => {
    const definitions = make().getModuleDefinitions();
    const ranges = definitions.flatMap((d) => [
      ...(d.name === name ? d.supportedVersions : []),
      ...d.files.filter((f) => f.name === name).flatMap((f) => f.supportedVersions),
    ]);
    expect(ranges.length).toBeGreaterThan(0);
    expect(ranges.some((r) => semver.satisfies(version, r))).toBe(true);
  });
});
