// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC721TransferTarget {
    function safeTransferFrom(address from, address to, uint256 tokenId) external;
}

interface IERC1155TransferTarget {
    function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes calldata data) external;
}

/// @notice Stand-in for LooksRare v1 TransferManagerERC721 / TransferManagerERC1155 (one contract,
/// the kind is chosen at deployment). Sellers approve their collection to this contract, and only
/// the exchange may make it move tokens. The exchange is set once after deployment because the
/// exchange constructor takes the managers' addresses.
contract TestTransferManager {
    bool public immutable isERC1155;
    address public immutable deployer;
    address public exchange;

    event ExchangeSet(address indexed exchange);

    constructor(bool isERC1155_) {
        isERC1155 = isERC1155_;
        deployer = msg.sender;
    }

    function setExchange(address exchange_) external {
        require(msg.sender == deployer, "TransferManager: not deployer");
        require(exchange == address(0), "TransferManager: exchange already set");
        require(exchange_ != address(0), "TransferManager: zero exchange");
        exchange = exchange_;
        emit ExchangeSet(exchange_);
    }

    /// @notice Same signature as the v1 transfer managers.
    function transferNonFungibleToken(address collection, address from, address to, uint256 tokenId, uint256 amount)
        external
    {
        require(msg.sender == exchange, "Transfer: Only LooksRare Exchange");
        if (isERC1155) {
            IERC1155TransferTarget(collection).safeTransferFrom(from, to, tokenId, amount, "");
        } else {
            // v1's TransferManagerERC721 ignores `amount`
            IERC721TransferTarget(collection).safeTransferFrom(from, to, tokenId);
        }
    }
}
