/**
 * A host's repositories may fail in ways txmon cannot name: a socket that closed, a driver that
 * threw. Whatever they throw that is not a {@link TxmonError} is a fault of the store, not of the
 * request or of txmon: the engine reports it as `STORE_UNAVAILABLE` (503, `Retry-After`), with the
 * original error as its `cause` for the log. Repositories that report their own faults
 * (`flags.reportsStoreFaults`, as txmon's do) are used as they are.
 */
import { isTxmonError, TxmonError } from '../errors.js';
import type { ExclusiveUnitOptions, Repositories } from './repositories.js';

/** `error` as the engine reports a repository's failure. */
export function storeFaultOf(error: unknown): unknown {
  if (isTxmonError(error)) return error;
  return new TxmonError('STORE_UNAVAILABLE', 'The store failed; try again', [], { cause: error });
}

const rethrow = (error: unknown): never => {
  throw storeFaultOf(error);
};

/** An async iterable whose failures are reported as {@link storeFaultOf}. */
async function* guardedIterable<T>(iterable: AsyncIterable<T>): AsyncIterable<T> {
  try {
    yield* iterable;
  } catch (error) {
    throw storeFaultOf(error);
  }
}

/** Every method name of `object`, own and inherited (a class-based repository keeps them on its prototype). */
export function methodNames(object: object): string[] {
  const names = new Set<string>();
  for (let o: object | null = object; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (name !== 'constructor' && typeof (object as Record<string, unknown>)[name] === 'function') names.add(name);
    }
  }
  return [...names];
}

/** `group` with each method's failure reported as {@link storeFaultOf}. */
function guardGroup<G extends object>(group: G): G {
  const guarded: Record<string, unknown> = { ...(group as Record<string, unknown>) };
  for (const name of methodNames(group)) {
    const method = (group as Record<string, (...args: unknown[]) => unknown>)[name] as (...args: unknown[]) => unknown;
    guarded[name] = (...args: unknown[]) => {
      let result: unknown;
      try {
        result = method.apply(group, args);
      } catch (error) {
        // Repository methods answer with promises: a synchronous throw becomes a rejection.
        return Promise.reject(storeFaultOf(error));
      }
      if (typeof (result as PromiseLike<unknown> | null)?.then === 'function') return (result as Promise<unknown>).then(undefined, rethrow);
      if (typeof (result as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === 'function') return guardedIterable(result as AsyncIterable<unknown>);
      return result;
    };
  }
  return guarded as G;
}

/** Errors thrown by the engine's own work inside a unit: passed on as they are, never taken for the store's. */
class WorkFailure {
  constructor(readonly error: unknown) {}
}

/**
 * `repositories` with every failure that is not a `TxmonError` reported as `STORE_UNAVAILABLE`;
 * unchanged when they report their own faults.
 */
export function guardRepositories(repositories: Repositories): Repositories {
  if (repositories.flags.reportsStoreFaults === true) return repositories;
  const { runExclusive, ping } = repositories;
  const guarded: Repositories = {
    transactions: guardGroup(repositories.transactions),
    ruleInstances: guardGroup(repositories.ruleInstances),
    users: guardGroup(repositories.users),
    comments: guardGroup(repositories.comments),
    cases: guardGroup(repositories.cases),
    files: guardGroup(repositories.files),
    aggregates: guardGroup(repositories.aggregates),
    lists: guardGroup(repositories.lists),
    batches: guardGroup(repositories.batches),
    decisions: guardGroup(repositories.decisions),
    audit: guardGroup(repositories.audit),
    outbox: guardGroup(repositories.outbox),
    flags: repositories.flags,
  };
  if (ping !== undefined) guarded.ping = () => ping.call(repositories).then(undefined, rethrow);
  if (runExclusive !== undefined) {
    guarded.runExclusive = async <T>(keys: readonly string[], work: (inner: Repositories) => Promise<T>, options?: ExclusiveUnitOptions): Promise<T> => {
      try {
        return await runExclusive.call<Repositories, [readonly string[], (inner: Repositories) => Promise<T>, ExclusiveUnitOptions | undefined], Promise<T>>(
          repositories,
          keys,
          async (inner) => {
            try {
              return await work(guardRepositories(inner));
            } catch (error) {
              // The engine's own error (a conflict, a validation): not the store's.
              throw new WorkFailure(error);
            }
          },
          options,
        );
      } catch (error) {
        if (error instanceof WorkFailure) throw error.error;
        throw storeFaultOf(error);
      }
    };
  }
  return guarded;
}
