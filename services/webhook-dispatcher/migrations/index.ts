import type { Migration } from '@mf/db';
import { endpointsDeliveries } from './0001_endpoints_deliveries';
import { testDeliveries } from './0002_test_deliveries';
import { deliveryDetail } from './0003_delivery_detail';
import { deliveryLanes } from './0004_delivery_lanes';
import { endpointSettings } from './0005_endpoint_settings';

/** In order. Append only. */
export const migrations: Migration[] = [
  endpointsDeliveries,
  testDeliveries,
  deliveryDetail,
  deliveryLanes,
  endpointSettings,
];
