import type { BucketStore } from '../bucket/types.js';
import { processGlobal } from '../process-global.js';
import { DebtLedger } from './debt-ledger.js';
import { FallbackStore } from './fallback-store.js';
import { LastKnown } from './last-known.js';

/**
 * What every budget of this process that charges one store shares, whatever its entry point (the
 * Apollo plugin, the Envelop plugin, graphql-ws, `chargeOperation`): what the store last said of
 * each bucket, the in-process buckets that stand in for them while it is away, and what callers
 * still owe it. A caller spending through two of them during an outage spends one stand-in, and a
 * debt taken on through one is paid first by the next charge through the other.
 */
export interface SharedStoreState {
  readonly known: LastKnown;
  readonly standIns: FallbackStore;
  readonly debts: DebtLedger;
}

const states = processGlobal('store-states', () => new WeakMap<BucketStore, SharedStoreState>());

/** The state every budget charging `store` in this process shares, made on first use. */
export function sharedStoreState(store: BucketStore): SharedStoreState {
  let state = states.get(store);
  if (state === undefined) {
    const known = new LastKnown();
    // The ledger and the stand-ins each need the other: a debt is taken from a started stand-in
    // too, and a stand-in starts lower by what is owed.
    let debts: DebtLedger | undefined;
    const standIns = new FallbackStore(known, (limit) => debts?.owedBy(limit) ?? 0);
    debts = new DebtLedger(store, (limit, amount) => standIns.owe(limit, amount));
    state = { known, standIns, debts };
    states.set(store, state);
  }
  return state;
}
