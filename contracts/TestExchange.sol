// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC20Minimal {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

interface ITransferManagerNFT {
    function transferNonFungibleToken(address collection, address from, address to, uint256 tokenId, uint256 amount)
        external;
}

/// @notice Test stand-in for the LooksRare v1 exchange. Emits the v1 events with their exact
/// signatures and keeps v1's nonce bookkeeping, but fills without signature checks, strategies,
/// fees or royalties: the whole price goes to the seller, in WETH only.
contract TestExchange {
    /// @dev One fill. The taker is always msg.sender. `maker` is the seller for fillAsk
    /// (maker ask filled by a taker bid) and the buyer for fillBid (maker bid filled by a taker ask).
    struct Fill {
        bytes32 orderHash;
        uint256 orderNonce;
        address maker;
        address strategy;
        address currency;
        address collection;
        uint256 tokenId;
        uint256 amount;
        uint256 price;
        bool isERC1155;
    }

    address public immutable WETH;
    address public immutable transferManagerERC721;
    address public immutable transferManagerERC1155;

    mapping(address => uint256) public userMinOrderNonce;
    mapping(address => mapping(uint256 => bool)) public isUserOrderNonceExecutedOrCancelled;

    event CancelAllOrders(address indexed user, uint256 newMinNonce);
    event CancelMultipleOrders(address indexed user, uint256[] orderNonces);
    event TakerAsk(
        bytes32 orderHash,
        uint256 orderNonce,
        address indexed taker,
        address indexed maker,
        address indexed strategy,
        address currency,
        address collection,
        uint256 tokenId,
        uint256 amount,
        uint256 price
    );
    event TakerBid(
        bytes32 orderHash,
        uint256 orderNonce,
        address indexed taker,
        address indexed maker,
        address indexed strategy,
        address currency,
        address collection,
        uint256 tokenId,
        uint256 amount,
        uint256 price
    );

    constructor(address weth_, address transferManagerERC721_, address transferManagerERC1155_) {
        WETH = weth_;
        transferManagerERC721 = transferManagerERC721_;
        transferManagerERC1155 = transferManagerERC1155_;
    }

    function cancelAllOrdersForSender(uint256 minNonce) external {
        require(minNonce > userMinOrderNonce[msg.sender], "Cancel: Order nonce lower than current");
        require(minNonce < userMinOrderNonce[msg.sender] + 500000, "Cancel: Cannot cancel more orders");
        userMinOrderNonce[msg.sender] = minNonce;
        emit CancelAllOrders(msg.sender, minNonce);
    }

    function cancelMultipleMakerOrders(uint256[] calldata orderNonces) external {
        require(orderNonces.length > 0, "Cancel: Cannot be empty");
        for (uint256 i = 0; i < orderNonces.length; i++) {
            require(orderNonces[i] >= userMinOrderNonce[msg.sender], "Cancel: Order nonce lower than current");
            isUserOrderNonceExecutedOrCancelled[msg.sender][orderNonces[i]] = true;
        }
        emit CancelMultipleOrders(msg.sender, orderNonces);
    }

    /// @notice Maker ask (seller = maker) filled by a taker bid (buyer = msg.sender). Emits TakerBid.
    function fillAsk(Fill calldata f) external {
        _useNonce(f);
        _pay(f.currency, msg.sender, f.maker, f.price);
        _moveNFT(f, f.maker, msg.sender);
        emit TakerBid(
            f.orderHash, f.orderNonce, msg.sender, f.maker, f.strategy, f.currency, f.collection, f.tokenId, f.amount, f.price
        );
    }

    /// @notice Maker bid (buyer = maker) filled by a taker ask (seller = msg.sender). Emits TakerAsk.
    function fillBid(Fill calldata f) external {
        _useNonce(f);
        _moveNFT(f, msg.sender, f.maker);
        _pay(f.currency, f.maker, msg.sender, f.price);
        emit TakerAsk(
            f.orderHash, f.orderNonce, msg.sender, f.maker, f.strategy, f.currency, f.collection, f.tokenId, f.amount, f.price
        );
    }

    function _useNonce(Fill calldata f) private {
        require(f.maker != address(0), "Order: Invalid signer");
        require(f.amount > 0, "Order: Amount cannot be 0");
        require(
            !isUserOrderNonceExecutedOrCancelled[f.maker][f.orderNonce] && f.orderNonce >= userMinOrderNonce[f.maker],
            "Order: Matching order expired"
        );
        isUserOrderNonceExecutedOrCancelled[f.maker][f.orderNonce] = true;
    }

    function _pay(address currency, address from, address to, uint256 price) private {
        require(currency == WETH, "Currency: Not whitelisted");
        require(IERC20Minimal(currency).transferFrom(from, to, price), "Currency: transfer failed");
    }

    function _moveNFT(Fill calldata f, address from, address to) private {
        address manager = f.isERC1155 ? transferManagerERC1155 : transferManagerERC721;
        ITransferManagerNFT(manager).transferNonFungibleToken(f.collection, from, to, f.tokenId, f.amount);
    }
}
