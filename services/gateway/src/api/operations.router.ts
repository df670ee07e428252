import { Router } from 'express';
import { assertScope } from '../core/auth/auth-context';
import { authOf } from '../http/auth.middleware';
import { expressPath, type Operation } from '../operations/operation';
import { OPERATIONS, type OperationId } from '../operations/table';
import { ANSWERED, operationCall, type OperationHandler } from './operations.handlers';

/**
 * One route per operation of the table: its scope (403 naming it), then its handler, whose reply
 * is sent with the table's status and Cache-Control.
 */
export function operationsRouter(handlers: Record<OperationId, OperationHandler>): Router {
  const router = Router();
  for (const o of OPERATIONS as readonly (Operation & { id: OperationId })[]) {
    const handle = handlers[o.id];
    const { status, noStore } = o.reply;
    const { scope } = o;
    router[o.method](expressPath(o.path), async (req, res) => {
      const auth = authOf(req);
      if (scope) assertScope(auth, scope);
      if (noStore === 'always') res.setHeader('Cache-Control', 'no-store');
      const reply = await handle(operationCall(req, res, auth));
      if (reply === ANSWERED) return;
      if (noStore === 'reply') res.setHeader('Cache-Control', 'no-store');
      if (Buffer.isBuffer(reply)) {
        // Prebuilt JSON: the same bytes and headers res.json would send.
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.send(reply);
      } else res.status(status).json(reply);
    });
  }
  return router;
}
