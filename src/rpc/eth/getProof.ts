import { KECCAK256_NULL, KECCAK256_RLP } from "@ethereumjs/util";
import type { RpcBackend } from "../../services/backend.ts";
import { InvalidParamsError, ServerError } from "../../services/errors.ts";
import { bytesToHex, quantity } from "../../util/hex.ts";
import { array, data, object, qty } from "../../util/json.ts";
import { defineMethod, optional, RawJson, required } from "../method.ts";
import { decodeStorageKey, parseAddress, parseBlockSelector } from "../params.ts";
import { resolveBlockTarget } from "../resolveBlock.ts";
import { storageWord } from "./storageWord.ts";

/** geth's maxGetProofKeys. */
export const MAX_PROOF_KEYS = 1024;

/** A JSON array of strings (Go's []string). */
function parseStringList(raw: unknown): string[] {
  if (!Array.isArray(raw)) {
    const kind = raw === null ? "null" : typeof raw === "object" ? "object" : typeof raw;
    throw new InvalidParamsError(
      `json: cannot unmarshal ${kind === "boolean" ? "bool" : kind} into Go value of type []string`,
    );
  }
  for (const k of raw)
    if (typeof k !== "string") {
      const kind = typeof k === "boolean" ? "bool" : Array.isArray(k) ? "array" : typeof k;
      throw new InvalidParamsError(
        `json: cannot unmarshal ${k === null ? "null" : kind} into Go value of type string`,
      );
    }
  return raw as string[];
}

/** geth echoes a 32-byte key as given and any shorter one as a QUANTITY. */
function outputKey(input: string, key: Uint8Array): string {
  const hex = input.startsWith("0x") || input.startsWith("0X") ? input.slice(2) : input;
  const bytes = (hex.length + (hex.length % 2)) / 2;
  if (bytes === 32) return bytesToHex(key);
  return quantity(BigInt(bytesToHex(key)));
}

/**
 * eth_getProof(address, storageKeys, block = latest) → the account and storage proofs, as geth:
 * from the state trie at that block (the archive keeps every sealed state's nodes).
 */
export function getProof(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress), required(parseStringList), optional(parseBlockSelector)],
    reads: "proof",
    handler: async ([address, keys, selector]) => {
      if (keys.length > MAX_PROOF_KEYS)
        throw new InvalidParamsError(
          `too many storage keys requested (max ${MAX_PROOF_KEYS}, got ${keys.length})`,
        );
      // Keys are decoded before any state is read (geth).
      const slots = keys.map((k) => {
        try {
          return decodeStorageKey(k);
        } catch (e) {
          throw new InvalidParamsError((e as Error).message);
        }
      });
      const sel = selector ?? { kind: "tag", tag: "latest" };
      const target = resolveBlockTarget(backend, sel);
      if (target === undefined)
        throw new ServerError(
          sel.kind === "hash" ? "header for hash not found" : "header not found",
        );
      if (target.kind === "pending")
        throw new ServerError(
          "proofs are not available for the pre-confirmed block (no state root yet)",
        );
      const proofs = backend.proofs;
      if (proofs === undefined) throw new ServerError("proofs are not served by this node");
      const headerRlp = backend.chain.headerRlp(target.number, target.hash);
      if (headerRlp === undefined) throw new ServerError("header not found");
      const stateRoot = backend.decoder.header(headerRlp).stateRoot;
      const account = backend.state.account(address, target.number);
      const { proof, storageRoot } = await proofs.account(stateRoot, address);
      const storageProofs = await Promise.all(
        slots.map(async (slot, i) => {
          const key = outputKey(keys[i]!, slot);
          if (storageRoot === undefined || bytesToHex(storageRoot) === bytesToHex(KECCAK256_RLP))
            return object([
              ["key", JSON.stringify(key)],
              ["value", '"0x0"'],
              ["proof", "[]"],
            ]);
          const value = backend.state.storage(address, slot, target.number);
          return object([
            ["key", JSON.stringify(key)],
            ["value", qty(BigInt(storageWord(value)))],
            ["proof", array(await proofs.storage(storageRoot, slot), data)],
          ]);
        }),
      );
      return new RawJson(
        object([
          ["address", data(address)],
          ["accountProof", array(proof, data)],
          ["balance", qty(account?.balance ?? 0n)],
          ["codeHash", data(account?.codeHash ?? KECCAK256_NULL)],
          ["nonce", qty(account?.nonce ?? 0n)],
          ["storageHash", data(storageRoot ?? KECCAK256_RLP)],
          ["storageProof", `[${storageProofs.join(",")}]`],
        ]),
      );
    },
  });
}
