// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC20Minimal {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

interface IWETHMinimal {
    function deposit() external payable;
    function transfer(address to, uint256 amount) external returns (bool);
}

interface IERC165Minimal {
    function supportsInterface(bytes4 interfaceId) external view returns (bool);
}

interface IERC1271Minimal {
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4);
}

interface ITransferManagerNFT {
    function transferNonFungibleToken(address collection, address from, address to, uint256 tokenId, uint256 amount)
        external;
}

/// @notice Test stand-in for the LooksRare v1 exchange. Emits the v1 events with their exact
/// signatures and keeps v1's nonce bookkeeping. fillAsk/fillBid fill without signature checks,
/// strategies, fees or royalties: the whole price goes to the seller, in WETH only.
/// The three v1 taker functions take v1's calldata (same selectors and struct layout as the
/// v1 SDK's ABI) and check what v1 checks before a fill (sides, taker, nonce, EIP-712 signature,
/// currency, the fixed-price strategies' price/token/time rules), without fees or royalties.
/// Mirrors LooksRare/contracts-exchange-v1 contracts/LooksRareExchange.sol
/// (https://github.com/LooksRare/contracts-exchange-v1/blob/c16227781294f23241f80c4bcc3adf77aaa81157/contracts/LooksRareExchange.sol#L186-L356).
contract TestExchange {
    /// @dev OrderTypes.MakerOrder of v1.
    struct MakerOrder {
        bool isOrderAsk;
        address signer;
        address collection;
        uint256 price;
        uint256 tokenId;
        uint256 amount;
        address strategy;
        address currency;
        uint256 nonce;
        uint256 startTime;
        uint256 endTime;
        uint256 minPercentageToAsk;
        bytes params;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// @dev OrderTypes.TakerOrder of v1.
    struct TakerOrder {
        bool isOrderAsk;
        address taker;
        uint256 price;
        uint256 tokenId;
        uint256 minPercentageToAsk;
        bytes params;
    }

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

    /// @dev EIP-712 domain of v1: name "LooksRareExchange", version "1", this chain and contract.
    bytes32 public immutable DOMAIN_SEPARATOR;
    bytes32 private constant MAKER_ORDER_HASH = 0x40261ade532fa1d2c7293df30aaadb9b3c616fae525a0b56d3d411c841a85028;

    /// @dev Strategies that fill a maker bid with any token of the collection
    /// (StrategyAnyItemFromCollectionForFixedPrice); every other strategy is the standard sale.
    mapping(address => bool) public isCollectionOfferStrategy;

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
        DOMAIN_SEPARATOR = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("LooksRareExchange"),
                keccak256(bytes("1")),
                block.chainid,
                address(this)
            )
        );
    }

    /// @notice Test setup: which strategy addresses are collection offers (no access control).
    function setCollectionOfferStrategy(address strategy, bool isCollectionOffer) external {
        isCollectionOfferStrategy[strategy] = isCollectionOffer;
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

    // ---- the v1 taker functions ----

    function matchAskWithTakerBidUsingETHAndWETH(TakerOrder calldata takerBid, MakerOrder calldata makerAsk)
        external
        payable
    {
        require(makerAsk.isOrderAsk && !takerBid.isOrderAsk, "Order: Wrong sides");
        require(makerAsk.currency == WETH, "Order: Currency must be WETH");
        require(msg.sender == takerBid.taker, "Order: Taker must be the sender");
        // If not enough ETH to cover the price, use WETH
        if (takerBid.price > msg.value) {
            require(IERC20Minimal(WETH).transferFrom(msg.sender, address(this), takerBid.price - msg.value), "WETH: transfer failed");
        } else {
            require(takerBid.price == msg.value, "Order: Msg.value too high");
        }
        IWETHMinimal(WETH).deposit{value: msg.value}();
        (bytes32 askHash, uint256 tokenId) = _take(takerBid, makerAsk);
        require(IWETHMinimal(WETH).transfer(makerAsk.signer, takerBid.price), "WETH: transfer failed");
        _moveToken(makerAsk.collection, makerAsk.signer, takerBid.taker, tokenId, makerAsk.amount);
        _emitTakerBid(askHash, takerBid, makerAsk, tokenId);
    }

    function matchAskWithTakerBid(TakerOrder calldata takerBid, MakerOrder calldata makerAsk) external {
        require(makerAsk.isOrderAsk && !takerBid.isOrderAsk, "Order: Wrong sides");
        require(msg.sender == takerBid.taker, "Order: Taker must be the sender");
        (bytes32 askHash, uint256 tokenId) = _take(takerBid, makerAsk);
        _pay(makerAsk.currency, msg.sender, makerAsk.signer, takerBid.price);
        _moveToken(makerAsk.collection, makerAsk.signer, takerBid.taker, tokenId, makerAsk.amount);
        _emitTakerBid(askHash, takerBid, makerAsk, tokenId);
    }

    function matchBidWithTakerAsk(TakerOrder calldata takerAsk, MakerOrder calldata makerBid) external {
        require(!makerBid.isOrderAsk && takerAsk.isOrderAsk, "Order: Wrong sides");
        require(msg.sender == takerAsk.taker, "Order: Taker must be the sender");
        (bytes32 bidHash, uint256 tokenId) = _take(takerAsk, makerBid);
        _moveToken(makerBid.collection, msg.sender, makerBid.signer, tokenId, makerBid.amount);
        _pay(makerBid.currency, makerBid.signer, takerAsk.taker, takerAsk.price);
        emit TakerAsk(
            bidHash,
            makerBid.nonce,
            takerAsk.taker,
            makerBid.signer,
            makerBid.strategy,
            makerBid.currency,
            makerBid.collection,
            tokenId,
            makerBid.amount,
            takerAsk.price
        );
    }

    function _emitTakerBid(bytes32 askHash, TakerOrder calldata takerBid, MakerOrder calldata makerAsk, uint256 tokenId) private {
        emit TakerBid(
            askHash,
            makerAsk.nonce,
            takerBid.taker,
            makerAsk.signer,
            makerAsk.strategy,
            makerAsk.currency,
            makerAsk.collection,
            tokenId,
            makerAsk.amount,
            takerBid.price
        );
    }

    /// @dev _validateOrder, the strategy's canExecuteTaker*, and the nonce marked executed.
    function _take(TakerOrder calldata taker, MakerOrder calldata maker) private returns (bytes32 orderHash, uint256 tokenId) {
        require(
            !isUserOrderNonceExecutedOrCancelled[maker.signer][maker.nonce] && maker.nonce >= userMinOrderNonce[maker.signer],
            "Order: Matching order expired"
        );
        require(maker.signer != address(0), "Order: Invalid signer");
        require(maker.amount > 0, "Order: Amount cannot be 0");
        orderHash = _hashMakerOrder(maker);
        require(_validSignature(orderHash, maker), "Signature: Invalid");
        require(maker.currency == WETH, "Currency: Not whitelisted");
        bool anyItem = !maker.isOrderAsk && isCollectionOfferStrategy[maker.strategy];
        tokenId = anyItem ? taker.tokenId : maker.tokenId;
        require(
            maker.price == taker.price && (anyItem || maker.tokenId == taker.tokenId) && maker.startTime <= block.timestamp
                && maker.endTime >= block.timestamp,
            "Strategy: Execution invalid"
        );
        isUserOrderNonceExecutedOrCancelled[maker.signer][maker.nonce] = true;
    }

    /// @dev OrderTypes.hash: all words are static, so two abi.encode halves concatenate to one.
    function _hashMakerOrder(MakerOrder calldata o) private pure returns (bytes32) {
        return keccak256(
            bytes.concat(
                abi.encode(MAKER_ORDER_HASH, o.isOrderAsk, o.signer, o.collection, o.price, o.tokenId, o.amount),
                abi.encode(o.strategy, o.currency, o.nonce, o.startTime, o.endTime, o.minPercentageToAsk, keccak256(o.params))
            )
        );
    }

    /// @dev SignatureChecker.verify: EIP-1271 for a contract signer, else ecrecover with v1's bounds.
    function _validSignature(bytes32 orderHash, MakerOrder calldata o) private view returns (bool) {
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR, orderHash));
        if (o.signer.code.length > 0) {
            return IERC1271Minimal(o.signer).isValidSignature(digest, abi.encodePacked(o.r, o.s, o.v)) == 0x1626ba7e;
        }
        if (uint256(o.s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) return false;
        if (o.v != 27 && o.v != 28) return false;
        address recovered = ecrecover(digest, o.v, o.r, o.s);
        return recovered != address(0) && recovered == o.signer;
    }

    /// @dev TransferSelectorNFT: the manager by the collection's ERC-165 interface.
    function _moveToken(address collection, address from, address to, uint256 tokenId, uint256 amount) private {
        address manager = IERC165Minimal(collection).supportsInterface(0x80ac58cd) ? transferManagerERC721 : transferManagerERC1155;
        ITransferManagerNFT(manager).transferNonFungibleToken(collection, from, to, tokenId, amount);
    }
}
