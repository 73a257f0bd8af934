// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC721Receiver {
    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata data)
        external
        returns (bytes4);
}

/// @notice Minimal ERC-721 for tests. Anyone may mint; owner() is only informational (Ownable-like).
contract TestERC721 {
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
    /// EIP-4906
    event MetadataUpdate(uint256 _tokenId);
    event BatchMetadataUpdate(uint256 _fromTokenId, uint256 _toTokenId);
    /// ERC-7572
    event ContractURIUpdated();

    string public name;
    string public symbol;
    address public owner;
    uint256 public totalSupply;

    mapping(uint256 => address) private _owners;
    mapping(address => uint256) private _balances;
    mapping(uint256 => address) private _tokenApprovals;
    mapping(address => mapping(address => bool)) private _operatorApprovals;
    string private _baseURI;
    mapping(uint256 => string) private _tokenURIs;

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
        owner = msg.sender;
        emit OwnershipTransferred(address(0), msg.sender);
    }

    function transferOwnership(address newOwner) external {
        require(msg.sender == owner, "Ownable: caller is not the owner");
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x80ac58cd // ERC-721
            || interfaceId == 0x5b5e139f // ERC-721 metadata
            || interfaceId == 0x49064906 // EIP-4906
            || interfaceId == 0x01ffc9a7; // ERC-165
    }

    function balanceOf(address account) external view returns (uint256) {
        require(account != address(0), "ERC721: zero address");
        return _balances[account];
    }

    function ownerOf(uint256 tokenId) public view returns (address) {
        address tokenOwner = _owners[tokenId];
        require(tokenOwner != address(0), "ERC721: invalid token ID");
        return tokenOwner;
    }

    function mint(address to, uint256 tokenId) public {
        require(to != address(0), "ERC721: mint to the zero address");
        require(_owners[tokenId] == address(0), "ERC721: token already minted");
        _balances[to] += 1;
        _owners[tokenId] = to;
        totalSupply += 1;
        emit Transfer(address(0), to, tokenId);
    }

    function approve(address to, uint256 tokenId) external {
        address tokenOwner = ownerOf(tokenId);
        require(to != tokenOwner, "ERC721: approval to current owner");
        require(
            msg.sender == tokenOwner || _operatorApprovals[tokenOwner][msg.sender],
            "ERC721: approve caller is not token owner or approved for all"
        );
        _tokenApprovals[tokenId] = to;
        emit Approval(tokenOwner, to, tokenId);
    }

    function getApproved(uint256 tokenId) external view returns (address) {
        ownerOf(tokenId);
        return _tokenApprovals[tokenId];
    }

    function setApprovalForAll(address operator, bool approved) external {
        require(operator != msg.sender, "ERC721: approve to caller");
        _operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address account, address operator) external view returns (bool) {
        return _operatorApprovals[account][operator];
    }

    function transferFrom(address from, address to, uint256 tokenId) public {
        address tokenOwner = ownerOf(tokenId);
        require(
            msg.sender == tokenOwner || _tokenApprovals[tokenId] == msg.sender
                || _operatorApprovals[tokenOwner][msg.sender],
            "ERC721: caller is not token owner or approved"
        );
        require(tokenOwner == from, "ERC721: transfer from incorrect owner");
        require(to != address(0), "ERC721: transfer to the zero address");
        delete _tokenApprovals[tokenId];
        _balances[from] -= 1;
        _balances[to] += 1;
        _owners[tokenId] = to;
        emit Transfer(from, to, tokenId);
    }

    function safeTransferFrom(address from, address to, uint256 tokenId) external {
        safeTransferFrom(from, to, tokenId, "");
    }

    function safeTransferFrom(address from, address to, uint256 tokenId, bytes memory data) public {
        transferFrom(from, to, tokenId);
        if (to.code.length > 0) {
            require(
                IERC721Receiver(to).onERC721Received(msg.sender, from, tokenId, data)
                    == IERC721Receiver.onERC721Received.selector,
                "ERC721: transfer to non ERC721Receiver implementer"
            );
        }
    }

    /// tokenURI: the token's own URI when one was set, else the base URI followed by the id in
    /// decimal (the common layout), else "" (as many contracts answer before a reveal).
    function tokenURI(uint256 tokenId) external view returns (string memory) {
        bytes memory own = bytes(_tokenURIs[tokenId]);
        if (own.length > 0) return _tokenURIs[tokenId];
        if (bytes(_baseURI).length == 0) return "";
        return string(abi.encodePacked(_baseURI, _decimal(tokenId)));
    }

    function setBaseURI(string calldata baseURI) external {
        _baseURI = baseURI;
        emit BatchMetadataUpdate(0, type(uint256).max);
    }

    /// ERC-7572: the collection's own metadata document ("" until set).
    string public contractURI;

    function setContractURI(string calldata uri) external {
        contractURI = uri;
        emit ContractURIUpdated();
    }

    function setTokenURI(uint256 tokenId, string calldata uri) external {
        _tokenURIs[tokenId] = uri;
        emit MetadataUpdate(tokenId);
    }

    /// Announces a batch without changing anything (a contract that moved its files itself).
    function announceBatchMetadataUpdate(uint256 fromTokenId, uint256 toTokenId) external {
        emit BatchMetadataUpdate(fromTokenId, toTokenId);
    }

    function _decimal(uint256 v) private pure returns (bytes memory) {
        if (v == 0) return "0";
        uint256 digits;
        for (uint256 t = v; t != 0; t /= 10) digits++;
        bytes memory out = new bytes(digits);
        while (v != 0) {
            digits -= 1;
            out[digits] = bytes1(uint8(48 + (v % 10)));
            v /= 10;
        }
        return out;
    }
}
