// SPDX-License-Identifier: MIT
pragma solidity 0.8.15;

/// @title GasPriceOracleProxy
/// @notice The GasPriceOracle predeploy of flashnode's dev chain. Every call is delegated to
///         Optimism's published GasPriceOracle (contracts-bedrock 0.17.3, version 1.3.0), placed
///         at its implementation address, as a predeploy proxy does. That release predates
///         Isthmus, whose getOperatorFee(uint256) fee tooling now reads (viem's
///         estimateTotalFee): it is answered here. The chain charges no operator fee (zero, as
///         on Base and every standard OP chain), so neither does this.
contract GasPriceOracleProxy {
    address internal constant IMPLEMENTATION = 0xc0d3C0d3C0d3c0D3C0D3C0d3C0d3C0D3C0D3000f;

    /// @notice The operator fee for a transaction using `_gasUsed` gas: none on this chain.
    function getOperatorFee(uint256 _gasUsed) external pure returns (uint256) {
        _gasUsed;
        return 0;
    }

    fallback() external {
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), IMPLEMENTATION, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch ok
            case 0 { revert(0, returndatasize()) }
            default { return(0, returndatasize()) }
        }
    }
}
