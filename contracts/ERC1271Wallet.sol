// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @notice Contract wallet owned by one EOA. isValidSignature accepts a 65-byte (r, s, v) signature
/// of the raw hash (no message prefix) made by the owner. The owner drives it through execute().
contract ERC1271Wallet {
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    bytes4 internal constant INVALID_VALUE = 0xffffffff;

    address public immutable owner;

    event Executed(address indexed target, uint256 value, bytes data);

    constructor(address owner_) {
        require(owner_ != address(0), "Wallet: zero owner");
        owner = owner_;
    }

    receive() external payable {}

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return INVALID_VALUE;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        address signer = ecrecover(hash, v, r, s);
        if (signer != address(0) && signer == owner) return MAGIC_VALUE;
        return INVALID_VALUE;
    }

    /// @notice Call any contract as the wallet (approve tokens, fill orders, ...). msg.value is forwarded.
    function execute(address target, bytes calldata data) external payable returns (bytes memory result) {
        require(msg.sender == owner, "Wallet: caller is not the owner");
        bool ok;
        (ok, result) = target.call{value: msg.value}(data);
        if (!ok) {
            assembly {
                revert(add(result, 32), mload(result))
            }
        }
        emit Executed(target, msg.value, data);
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 // ERC-165
            || interfaceId == 0x150b7a02 // ERC721Receiver
            || interfaceId == 0x4e2312e0; // ERC1155Receiver
    }

    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC721Received.selector;
    }

    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC1155Received.selector;
    }

    function onERC1155BatchReceived(address, address, uint256[] calldata, uint256[] calldata, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        return this.onERC1155BatchReceived.selector;
    }
}
