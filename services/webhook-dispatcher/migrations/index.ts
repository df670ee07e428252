import type { Migration } from '@mf/db';
import { endpointsDeliveries } from './0001_endpoints_deliveries';

/** In order. Append only. */
export const migrations: Migration[] = [endpointsDeliveries];
