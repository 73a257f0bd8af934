/**
 * A real local EVM for tests: Hardhat Network (EDR, the Rust EVM that ships inside the
 * `hardhat` 2 npm package) running in the test process, served over HTTP JSON-RPC on
 * 127.0.0.1 with a free port picked by the OS. Each call starts an independent chain, so
 * vitest files running in parallel workers never share one.
 *
 * Supports automine (default) and manual mining (evm_setAutomine / evm_mine), evm_snapshot /
 * evm_revert, evm_increaseTime / evm_setNextBlockTimestamp, hardhat_* methods, and the 20
 * accounts of the standard Hardhat mnemonic funded with 10 000 ETH each.
 *
 * It uses three internal modules of hardhat 2.29.1 (pinned exactly in package.json):
 * config resolution, provider construction and the `hardhat node` JSON-RPC server.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ethers } from 'ethers';

export const HARDHAT_MNEMONIC = 'test test test test test test test test test test test junk';
export const DEFAULT_CHAIN_ID = 31337;
const ACCOUNT_COUNT = 20;

export interface LocalEvm {
  rpcUrl: string;
  chainId: number;
  provider: ethers.JsonRpcProvider;
  /** >= 10 funded wallets (the Hardhat mnemonic's first 20 accounts), connected to `provider`. */
  wallets: ethers.Wallet[];
  stop(): Promise<void>;
}

export interface StartLocalEvmOptions {
  chainId?: number;
  /** TCP port on 127.0.0.1; default 0 = a free port chosen by the OS. */
  port?: number;
}

// Minimal shapes of the hardhat internals used here (hardhat ships CommonJS without "exports").
interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}
interface HardhatInternals {
  resolveConfig(configPath: string, userConfig: unknown): unknown;
  createProvider(config: unknown, networkName: string): Promise<Eip1193Provider>;
  JsonRpcServer: new (cfg: { hostname: string; port: number; provider: Eip1193Provider }) => {
    listen(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  };
}

let internals: HardhatInternals | undefined;
function loadHardhat(): HardhatInternals {
  if (!internals) {
    const require = createRequire(import.meta.url);
    const { resolveConfig } = require('hardhat/internal/core/config/config-resolution');
    const { createProvider } = require('hardhat/internal/core/providers/construction');
    const { JsonRpcServer } = require('hardhat/internal/hardhat-network/jsonrpc/server');
    internals = { resolveConfig, createProvider, JsonRpcServer };
  }
  return internals;
}

let privateKeys: string[] | undefined;
function hardhatPrivateKeys(): string[] {
  if (!privateKeys) {
    const root = ethers.HDNodeWallet.fromPhrase(HARDHAT_MNEMONIC, undefined, "m/44'/60'/0'/0");
    privateKeys = Array.from({ length: ACCOUNT_COUNT }, (_, i) => root.deriveChild(i).privateKey);
  }
  return privateKeys;
}

export async function startLocalEvm(opts: StartLocalEvmOptions = {}): Promise<LocalEvm> {
  const chainId = opts.chainId ?? DEFAULT_CHAIN_ID;
  const hh = loadHardhat();

  // resolveConfig needs an existing file as the "config path" (it only derives project paths
  // from it; nothing is written there because no forking cache or compilation is used).
  const config = hh.resolveConfig(fileURLToPath(import.meta.url), {
    networks: {
      hardhat: {
        chainId,
        accounts: { mnemonic: HARDHAT_MNEMONIC, count: ACCOUNT_COUNT },
        mining: { auto: true, interval: 0 },
        loggingEnabled: false,
      },
    },
  });
  const edr = await hh.createProvider(config, 'hardhat');
  const server = new hh.JsonRpcServer({ hostname: '127.0.0.1', port: opts.port ?? 0, provider: edr });
  const { port } = await server.listen();
  const rpcUrl = `http://127.0.0.1:${port}`;

  const network = new ethers.Network('local-evm', chainId);
  const provider = new ethers.JsonRpcProvider(rpcUrl, network, {
    staticNetwork: network,
    // ethers caches identical requests for 250 ms by default: eth_blockNumber right after
    // evm_mine / evm_revert would be stale.
    cacheTimeout: -1,
    pollingInterval: 50,
    batchStallTime: 0,
  });
  const wallets = hardhatPrivateKeys().map((pk) => new ethers.Wallet(pk, provider));

  let stopped = false;
  return {
    rpcUrl,
    chainId,
    provider,
    wallets,
    async stop() {
      if (stopped) return;
      stopped = true;
      provider.destroy();
      await server.close();
    },
  };
}
