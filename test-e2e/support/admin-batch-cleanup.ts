import { closeAdminBatches } from './admin-batch';

// A test file's admin batches (support/admin-batch.ts) end with the file; a dedicated fleet's ends
// earlier, with its shutdown.
afterAll(() => closeAdminBatches());
