// KZG for blob transactions and the point-evaluation precompile, on the native c-kzg binding.
// The trusted setup takes ~1.5 s to load, so it is loaded on first use, not at start.
import type { KZG } from "@ethereumjs/util";
import ckzg from "c-kzg";
import { bytesToHex, hexToBytes } from "./hex.ts";

let loaded = false;

function ready(): typeof ckzg {
  if (!loaded) {
    ckzg.loadTrustedSetup(0);
    loaded = true;
  }
  return ckzg;
}

const b = hexToBytes;
const h = bytesToHex;

export const nativeKzg: KZG = {
  blobToKzgCommitment: (blob) => h(ready().blobToKzgCommitment(b(blob))),
  computeBlobProof: (blob, commitment) => h(ready().computeBlobKzgProof(b(blob), b(commitment))),
  verifyProof: (commitment, z, y, proof) =>
    ready().verifyKzgProof(b(commitment), b(z), b(y), b(proof)),
  verifyBlobProofBatch: (blobs, commitments, proofs) =>
    ready().verifyBlobKzgProofBatch(blobs.map(b), commitments.map(b), proofs.map(b)),
  computeCells: (blob) => ready().computeCells(b(blob)).map(h),
  computeCellsAndProofs: (blob) => {
    const [cells, proofs] = ready().computeCellsAndKzgProofs(b(blob));
    return [cells.map(h), proofs.map(h)];
  },
  recoverCellsAndProofs: (indices, cells) => {
    const [outCells, proofs] = ready().recoverCellsAndKzgProofs(indices, cells.map(b));
    return [outCells.map(h), proofs.map(h)];
  },
  verifyCellKzgProofBatch: (commitments, indices, cells, proofs) =>
    ready().verifyCellKzgProofBatch(commitments.map(b), indices, cells.map(b), proofs.map(b)),
};
