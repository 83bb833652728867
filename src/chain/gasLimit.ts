// The gas limit a block producer gives its next block (geth's core.CalcGasLimit): it moves
// towards the producer's target by less than 1/1024 of the parent's limit per block, the most
// a valid header may change it. A chain continued by `dev` (one made by `flashnode import`,
// say) thus keeps valid headers whatever --gas-limit asks for.

/** The bound divisor of EIP-1559's gas limit rule, and the smallest limit geth aims for. */
const GAS_LIMIT_BOUND_DIVISOR = 1024n;
const MIN_GAS_LIMIT = 5000n;

export function calcGasLimit(parentGasLimit: bigint, desired: bigint): bigint {
  const delta = parentGasLimit / GAS_LIMIT_BOUND_DIVISOR - 1n;
  const target = desired < MIN_GAS_LIMIT ? MIN_GAS_LIMIT : desired;
  if (parentGasLimit < target) {
    const up = parentGasLimit + delta;
    return up > target ? target : up;
  }
  if (parentGasLimit > target) {
    const down = parentGasLimit - delta;
    return down < target ? target : down;
  }
  return parentGasLimit;
}
