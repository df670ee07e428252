// The dashboard API's shapes (@mf/contracts, derived from its joi schemas): type-only imports, so
// nothing of the server's code reaches the bundle.
export type * from '@mf/contracts/src/generated/types';
export type { DashboardReplies } from '@mf/contracts/src/api/dashboard-routes';
