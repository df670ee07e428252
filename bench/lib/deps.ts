/**
 * express and amqplib are dependencies of @mf/http and @mf/bus, not of the repository root, and
 * bench/ has no package.json of its own (nothing to install): they are loaded from those packages,
 * the very copies the services run, with their published types.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { REPO_ROOT } from '@mf/fleet';
import type ExpressModule from '../../libs/http/node_modules/@types/express';
import type * as AmqpModule from '../../libs/bus/node_modules/amqplib';

export type { Request, Response } from '../../libs/http/node_modules/@types/express';

export const express = createRequire(path.join(REPO_ROOT, 'libs/http/package.json'))('express') as typeof ExpressModule;
export const amqp = createRequire(path.join(REPO_ROOT, 'libs/bus/package.json'))('amqplib') as typeof AmqpModule;
