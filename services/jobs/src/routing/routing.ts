import type { FalEndpoints, ModelId } from '@mf/catalog';
import type { Mode, Provider } from '../providers/provider';
import { CircuitBreaker } from './circuit-breaker';
import type { ProviderMetrics } from './provider-metrics';
import type { ProviderSpec, RoutePrice, RoutingConfig } from './providers-document';

/**
 * One route as a job records it: a provider by name and the upstream model for the job's mode
 * (null: none), with the route's upstream price when the providers document gives one.
 */
export interface AttemptRoute {
  provider: string;
  model: string | null;
  price?: RoutePrice;
}

/**
 * The routes, providers, circuit breakers and metrics the use cases work with. A job's routes are
 * resolved when it is submitted and stored with it, so a job in flight keeps the routes it started
 * with when the operator re-points a model.
 */
export class Routing {
  private readonly breakers = new Map<string, CircuitBreaker>();

  constructor(
    private readonly config: RoutingConfig,
    private readonly providers: ReadonlyMap<string, Provider>,
    private readonly falEndpoints: FalEndpoints,
    readonly metrics: ProviderMetrics,
    now: () => number = Date.now,
  ) {
    for (const spec of config.providers.values()) {
      this.breakers.set(
        spec.name,
        new CircuitBreaker(spec.breaker, now, (state) =>
          metrics.circuitOpen.set({ provider: spec.name }, state === 'open' ? 1 : 0),
        ),
      );
    }
  }

  routesFor(modelId: ModelId, mode: Mode): AttemptRoute[] {
    return this.config.routes[modelId].map((r) => {
      const spec = this.config.providers.get(r.provider)!;
      const priced = r.price ? { price: r.price } : {};
      if (r.models) return { provider: r.provider, model: r.models[mode] ?? null, ...priced };
      if (spec.type === 'fal')
        return { provider: r.provider, model: this.falEndpoints[modelId][mode] ?? null, ...priced };
      // local renders itself; it records the catalog's endpoint path, as jobs always have (webhook bodies show it).
      return { provider: r.provider, model: this.falEndpoints[modelId][mode] ?? 'local' };
    });
  }

  provider(name: string): Provider | undefined {
    return this.providers.get(name);
  }

  spec(name: string): ProviderSpec | undefined {
    return this.config.providers.get(name);
  }

  /** The provider's breaker (a provider no longer configured gets a closed one). */
  breaker(name: string): CircuitBreaker {
    let b = this.breakers.get(name);
    if (!b) {
      b = new CircuitBreaker({ failures: 0, cooldownMs: 0 });
      this.breakers.set(name, b);
    }
    return b;
  }

  /** Every configured provider (shutdown closes those that hold resources). */
  all(): Provider[] {
    return [...this.providers.values()];
  }
}
