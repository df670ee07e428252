import { Router } from 'express';
import { requestId } from '@mf/http';
import type { Bus } from '@mf/bus';
import { authOf } from '../../http/auth.middleware';
import { getAccount } from '../../core/usecases/get-account.usecase';

export function accountRoutes(bus: Bus): Router {
  return Router().get('/account', async (req, res) => {
    const account = await getAccount(bus, authOf(req), requestId(req));
    res.setHeader('Cache-Control', 'no-store');
    res.json(account);
  });
}
