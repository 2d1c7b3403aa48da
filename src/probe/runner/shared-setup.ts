/**
 * The store behind {@link SharedSetup}: one per scan, keyed by what was set up (a flow as an
 * identity). It holds each value and the exchanges that made it, and counts the requests the setup
 * sent, which the report shows apart from every probe's own (`requests.shared`).
 */
import type { Evidence } from '../model/evidence.js';

/** Where a setup's requests go while it is made: its evidence and the scan's count. */
export interface SetupSink {
  readonly evidence: Evidence[];
  count(): void;
}

/** One scan's shared setup. */
export interface SetupStore {
  /** Requests every setup of the scan sent. */
  readonly calls: number;
  /** The probes run one after another from now on (the held-back pass): see `SharedSetup.serial`. */
  serial: boolean;
  /** The kept value of `key` and the exchanges that made it, or a new one made by `make`. */
  once<T>(
    key: string,
    make: (sink: SetupSink) => Promise<T>,
    keep: (value: T) => boolean,
  ): Promise<{ readonly value: T; readonly evidence: readonly Evidence[] }>;
}

interface Entry {
  readonly made: Promise<unknown>;
  readonly evidence: Evidence[];
}

/** A store with nothing in it. */
export function createSetupStore(): SetupStore {
  const entries = new Map<string, Entry>();
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    serial: false,
    async once<T>(
      key: string,
      make: (sink: SetupSink) => Promise<T>,
      keep: (value: T) => boolean,
    ): Promise<{ readonly value: T; readonly evidence: readonly Evidence[] }> {
      const held = entries.get(key);
      if (held !== undefined) {
        // Made (or being made) by another probe: its value, unless it decided nothing.
        const value = (await held.made.catch(() => undefined)) as T | undefined;
        if (value !== undefined && keep(value)) return { value, evidence: held.evidence };
      }
      const evidence: Evidence[] = [];
      const made = make({ evidence, count: () => void calls++ });
      const entry: Entry = { made, evidence };
      entries.set(key, entry);
      const forget = (): void => {
        if (entries.get(key) === entry) entries.delete(key);
      };
      let value: T;
      try {
        value = await made;
      } catch (err) {
        forget();
        throw err;
      }
      if (!keep(value)) forget();
      return { value, evidence };
    },
  };
}
