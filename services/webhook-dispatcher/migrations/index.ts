import type { Migration } from '@mf/db';
import { endpointsDeliveries } from './0001_endpoints_deliveries';
import { testDeliveries } from './0002_test_deliveries';

/** In order. Append only. */
export const migrations: Migration[] = [endpointsDeliveries, testDeliveries];
