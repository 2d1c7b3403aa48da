/**
 * Starting a foreign twin to be scanned: its target, and the scan options its identity carrier
 * needs (`identityHeader` for a header, `identityEnv` for an environment variable).
 */
import type { ScanConfig } from '../../../src/probe/runner/scan.js';
import type { Target, TransportKind } from '../../../src/probe/model/target.js';
import { foreignStdioCommand } from './index.js';
import type { ForeignTwin, IdentityCarrier } from './twin.js';

/** A started twin, ready to scan: spread `options` into `runScan`'s config, then `close()`. */
export interface ForeignTarget {
  readonly target: Target;
  readonly options: Pick<ScanConfig, 'identityHeader' | 'identityEnv'>;
  close(): Promise<void>;
}

function carrierOptions(
  carrier: IdentityCarrier,
  transport: TransportKind,
): ForeignTarget['options'] {
  if (carrier.kind === 'header' && transport === 'http')
    return { identityHeader: { name: carrier.name, value: '{identity}' } };
  if (carrier.kind === 'env' && transport === 'stdio') return { identityEnv: carrier.name };
  return {};
}

/** Starts `twin` in `variant` over `transport` (HTTP on 127.0.0.1; stdio is spawned by the scan). */
export async function startForeign(
  twin: ForeignTwin,
  variant: string,
  transport: TransportKind,
): Promise<ForeignTarget> {
  const options = carrierOptions(twin.identity[transport], transport);
  if (transport === 'stdio') {
    const { command, args } = twin.stdioCommand?.(variant) ?? foreignStdioCommand(twin.id, variant);
    return { target: { kind: 'stdio', command, args }, options, close: async () => undefined };
  }
  const running = await twin.startHttp(variant);
  return { target: { kind: 'http', url: running.url }, options, close: () => running.close() };
}
