// What RPC handlers may use: read interfaces of the chain and state, never the store or the VM.
import type { BlockView, HeaderView } from "../chain/blockView.ts";
import type { ChainReader, StateReader } from "../store/chainStore.ts";

export type BlockDecoder = {
  header(headerRlp: Uint8Array): HeaderView;
  block(headerRlp: Uint8Array, bodyRlp: Uint8Array): BlockView;
};

export type RpcBackend = {
  readonly chainId: bigint;
  readonly chain: ChainReader;
  readonly state: StateReader;
  readonly decoder: BlockDecoder;
  readonly clientVersion: string;
};
