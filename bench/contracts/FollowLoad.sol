// SPDX-License-Identifier: MIT
// The load of `npm run bench:follow`: an ERC-20 and a Uniswap-v2-style constant-product pair of
// two of them. Minimal on purpose (no LP shares, no flash swaps, no oracle accumulators): the
// bench wants the storage reads and writes, calls and logs of transfers and swaps, not a DEX.
pragma solidity 0.8.15;

contract Token {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    uint256 public totalSupply;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(uint256 supply) {
        balanceOf[msg.sender] = supply;
        totalSupply = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= value, "allowance");
            allowance[from][msg.sender] = allowed - value;
        }
        _move(from, to, value);
        return true;
    }

    function _move(address from, address to, uint256 value) private {
        uint256 balance = balanceOf[from];
        require(balance >= value, "balance");
        unchecked {
            balanceOf[from] = balance - value;
        }
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}

interface IToken {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
    function transfer(address to, uint256 value) external returns (bool);
}

// x * y = k with Uniswap v2's 0.3% fee on the input. A swap pulls the input from the caller
// (an approval, as v2's router does) and pays the output to it, then records the reserves and
// emits Swap and Sync as v2's pair does.
contract Pair {
    address public immutable token0;
    address public immutable token1;
    uint112 public reserve0;
    uint112 public reserve1;
    uint32 public blockTimestampLast;

    event Swap(
        address indexed sender,
        uint256 amount0In,
        uint256 amount1In,
        uint256 amount0Out,
        uint256 amount1Out,
        address indexed to
    );
    event Sync(uint112 reserve0, uint112 reserve1);

    constructor(address a, address b) {
        token0 = a;
        token1 = b;
    }

    function addLiquidity(uint256 amount0, uint256 amount1) external {
        IToken(token0).transferFrom(msg.sender, address(this), amount0);
        IToken(token1).transferFrom(msg.sender, address(this), amount1);
        _update(uint256(reserve0) + amount0, uint256(reserve1) + amount1);
    }

    /** One swap of `amountIn` of token0 (zeroForOne) or token1; reverts below `minOut`. */
    function swap(bool zeroForOne, uint256 amountIn, uint256 minOut) external returns (uint256) {
        uint256 out = _swap(zeroForOne, amountIn);
        require(out >= minOut, "slippage");
        return out;
    }

    /** `rounds` swaps in one transaction, alternating direction, each spending the last output. */
    function swapRounds(uint256 amountIn, uint256 rounds) external returns (uint256) {
        uint256 amount = amountIn;
        for (uint256 i = 0; i < rounds; i++) amount = _swap(i % 2 == 0, amount);
        return amount;
    }

    function _swap(bool zeroForOne, uint256 amountIn) private returns (uint256 out) {
        (uint256 rIn, uint256 rOut) = zeroForOne
            ? (uint256(reserve0), uint256(reserve1))
            : (uint256(reserve1), uint256(reserve0));
        uint256 inWithFee = amountIn * 997;
        out = (inWithFee * rOut) / (rIn * 1000 + inWithFee);
        require(out > 0, "output");
        (address tIn, address tOut) = zeroForOne ? (token0, token1) : (token1, token0);
        IToken(tIn).transferFrom(msg.sender, address(this), amountIn);
        IToken(tOut).transfer(msg.sender, out);
        if (zeroForOne) {
            _update(rIn + amountIn, rOut - out);
            emit Swap(msg.sender, amountIn, 0, 0, out, msg.sender);
        } else {
            _update(rOut - out, rIn + amountIn);
            emit Swap(msg.sender, 0, amountIn, out, 0, msg.sender);
        }
    }

    function _update(uint256 balance0, uint256 balance1) private {
        require(balance0 <= type(uint112).max && balance1 <= type(uint112).max, "overflow");
        reserve0 = uint112(balance0);
        reserve1 = uint112(balance1);
        blockTimestampLast = uint32(block.timestamp);
        emit Sync(reserve0, reserve1);
    }
}
