// Traits: a collection's trait panel (Collection.attributes: each trait type with its values,
// how many tokens carry each, and each value's floor and best bid from the live book), the
// kinds of attributes, and the metadata refresh a client can ask for.
import type { TraitTypeRow, TraitValueRow } from '../services/token-metadata.js';
import { builder } from './builder.js';

export const AttributeKindEnum = builder.enumType('AttributeKind', {
  description: 'STRING: a text value; NUMBER: a numeric value (display types number, boost_number, boost_percentage, or a JSON number); DATE: unix seconds (display type date)',
  values: ['STRING', 'NUMBER', 'DATE'] as const,
});

const TraitValueRef = builder.objectRef<TraitValueRow>('TraitValue').implement({
  description: 'One value of a trait type and its market, exact at the moment of the request',
  fields: (t) => ({
    value: t.exposeString('value'),
    tokenCount: t.exposeInt('tokenCount', { description: "the collection's tokens carrying this value" }),
    sharePercent: t.exposeFloat('sharePercent', { description: 'tokenCount as a percentage of the tokens showing metadata, rounded to 4 places' }),
    listedCount: t.exposeInt('listedCount', { description: 'of those, the tokens with a live fixed-price listing' }),
    floorPrice: t.field({ type: 'Uint256', nullable: true, description: 'the cheapest live fixed-price listing of a token with this value (wei); null: none listed', resolve: (v) => v.floorPrice }),
    bestBidPrice: t.field({
      type: 'Uint256',
      nullable: true,
      description: 'the highest live offer that can fill a token with this value: a token offer on one of them or a collection offer (wei); null: none',
      resolve: (v) => v.bestBidPrice,
    }),
  }),
});

const TraitTypeRef = builder.objectRef<TraitTypeRow>('TraitType').implement({
  description: 'A trait type of a collection and its values',
  fields: (t) => ({
    traitType: t.exposeString('traitType'),
    kind: t.field({ type: AttributeKindEnum, description: 'the kind of its values (NUMBER or DATE when any value is)', resolve: (x) => x.kind as 'STRING' | 'NUMBER' | 'DATE' }),
    valueCount: t.exposeInt('valueCount', { description: 'distinct values' }),
    min: t.exposeFloat('min', { nullable: true, description: 'NUMBER and DATE: the least value' }),
    max: t.exposeFloat('max', { nullable: true, description: 'NUMBER and DATE: the greatest value' }),
    values: t.field({ type: [TraitValueRef], description: 'most common first, then by value', resolve: (x) => x.values }),
  }),
});

builder.prismaObjectField('Collection', 'attributes', (t) =>
  t.field({
    type: [TraitTypeRef],
    description: "The collection's trait panel: every trait type (in code-unit order) with its values, counts, floors and best bids",
    complexity: 10,
    resolve: (c, _args, ctx) => ctx.services.tokenMetadata.traitPanel(c.address),
  }),
);

const MetadataRefreshRef = builder
  .objectRef<{ queued: boolean; tokens: number; nextRefreshAllowedAt: Date }>('MetadataRefresh')
  .implement({
    description: 'A refresh asked for: queued, or refused until the cooldown runs out',
    fields: (t) => ({
      queued: t.exposeBoolean('queued', { description: 'false: a refresh was asked for within the cooldown; nothing was queued' }),
      tokens: t.exposeInt('tokens', { description: 'tokens queued for a new read' }),
      nextRefreshAllowedAt: t.field({ type: 'UnixTime', description: 'the earliest time the next refresh of the same token or collection is accepted', resolve: (r) => BigInt(Math.ceil(r.nextRefreshAllowedAt.getTime() / 1000)) }),
    }),
  });

builder.mutationFields((t) => ({
  refreshMetadata: t.field({
    type: MetadataRefreshRef,
    description: 'Reads a token\'s metadata again (with tokenId), or every known token of a collection (without), once per cooldown',
    args: { collection: t.arg({ type: 'Address', required: true }), tokenId: t.arg({ type: 'Uint256', required: false }) },
    resolve: (_root, args, ctx) => ctx.services.tokenMetadata.refresh(args.collection, args.tokenId == null ? null : args.tokenId.toString()),
  }),
}));

/** One trait condition of a filter: tokens, orders or events of tokens carrying one of the values. */
export const TraitFilterInput = builder.inputType('TraitFilterInput', {
  description: 'Tokens whose trait of this type has one of these values (values as Token.attributes shows them)',
  fields: (t) => ({ traitType: t.string({ required: true }), values: t.stringList({ required: true }) }),
});
