import Joi from 'joi';
import { QUEUES } from './names';
import { rpcMethod, type AnyRpcMethod, type RpcService } from './rpc';

/** One webhook endpoint per API key (contract section 2, "Webhook configuration"). */
export interface SetEndpointRequest {
  api_key_id: number;
  user_id: number;
  url: string;
}
export interface SetEndpointReply {
  url: string;
  /** Present only when a new signing secret was generated (first enablement, or after a clear): shown once. */
  secret?: string;
}

export interface EndpointRef {
  api_key_id: number;
  user_id: number;
}

export interface EndpointView {
  url: string | null;
  created_at: string | null;
  updated_at: string | null;
}

export interface ListDeliveriesRequest extends EndpointRef {
  limit?: number;
}

/** One delivery attempt (the key's usage record of a webhook). */
export interface DeliveryView {
  id: number;
  /** Same for every attempt of one event: receivers drop duplicates by it. */
  event_id: string;
  event: string;
  /** The job of a job.* event; "" for a `webhook.test` event, which has none. */
  job_id: string;
  attempt: number;
  url: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: string;
}

export interface ListDeliveriesReply {
  deliveries: DeliveryView[];
}

/** The result of a test event: its one attempt, recorded like any other. */
export interface SendTestReply {
  delivery: DeliveryView;
}

const ref = { api_key_id: Joi.number().integer().min(1).required(), user_id: Joi.number().integer().min(1).required() };

export const webhooksRpc = {
  queue: QUEUES.webhooksRpc,
  methods: {
    setEndpoint: rpcMethod<SetEndpointRequest, SetEndpointReply>('webhooks.set-endpoint', Joi.object<SetEndpointRequest>({ ...ref, url: Joi.string().max(2048).required() })),
    clearEndpoint: rpcMethod<EndpointRef, { cleared: boolean }>('webhooks.clear-endpoint', Joi.object<EndpointRef>(ref)),
    getEndpoint: rpcMethod<EndpointRef, EndpointView>('webhooks.get-endpoint', Joi.object<EndpointRef>(ref)),
    listDeliveries: rpcMethod<ListDeliveriesRequest, ListDeliveriesReply>(
      'webhooks.list-deliveries',
      Joi.object<ListDeliveriesRequest>({ ...ref, limit: Joi.number().integer().min(1).max(500) }),
    ),
    /** Posts one signed `webhook.test` event to the key's endpoint now: one attempt, no retries. */
    sendTest: rpcMethod<EndpointRef, SendTestReply>('webhooks.send-test', Joi.object<EndpointRef>(ref)),
  },
} satisfies RpcService<Record<string, AnyRpcMethod>>;
