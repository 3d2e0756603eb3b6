/**
 * The sandbox store's GraphQL schema: the part of Shopify's Admin API (2025-10) that the program reads, written from
 * Shopify's public reference (shopify.dev, GraphQL Admin API: QueryRoot.orders/order/locations/webhookSubscriptions/
 * shop/currentAppInstallation, Order, LineItem, Fulfillment, Refund, RefundLineItem, Location, WebhookSubscription,
 * Mutation.webhookSubscriptionCreate), names and types as Shopify's. The program's queries are validated against it.
 */
export const STORE_SCHEMA = /* GraphQL */ `
  schema {
    query: QueryRoot
    mutation: Mutation
  }

  scalar DateTime
  scalar Decimal
  scalar UnsignedInt64
  scalar URL

  type QueryRoot {
    shop: Shop!
    currentAppInstallation: AppInstallation!
    order(id: ID!): Order
    orders(
      first: Int
      after: String
      last: Int
      before: String
      reverse: Boolean = false
      sortKey: OrderSortKeys = PROCESSED_AT
      query: String
      savedSearchId: ID
    ): OrderConnection!
    locations(
      first: Int
      after: String
      last: Int
      before: String
      reverse: Boolean = false
      sortKey: LocationSortKeys = NAME
      query: String
      includeLegacy: Boolean = false
      includeInactive: Boolean = false
    ): LocationConnection!
    webhookSubscriptions(
      first: Int
      after: String
      last: Int
      before: String
      reverse: Boolean = false
      sortKey: WebhookSubscriptionSortKeys = CREATED_AT
      query: String
      uri: String
      format: WebhookSubscriptionFormat
      topics: [WebhookSubscriptionTopic!]
    ): WebhookSubscriptionConnection!
  }

  type Mutation {
    webhookSubscriptionCreate(
      topic: WebhookSubscriptionTopic!
      webhookSubscription: WebhookSubscriptionInput!
    ): WebhookSubscriptionCreatePayload
  }

  type Shop {
    id: ID!
    name: String!
    myshopifyDomain: String!
    ianaTimezone: String!
  }
  type AppInstallation {
    id: ID!
    accessScopes: [AccessScope!]!
  }
  type AccessScope {
    handle: String!
    description: String!
  }

  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }

  enum OrderSortKeys {
    CREATED_AT
    CURRENT_TOTAL_PRICE
    CUSTOMER_NAME
    DESTINATION
    FINANCIAL_STATUS
    FULFILLMENT_STATUS
    ID
    ORDER_NUMBER
    PO_NUMBER
    PROCESSED_AT
    RELEVANCE
    TOTAL_ITEMS_QUANTITY
    TOTAL_PRICE
    UPDATED_AT
  }
  enum LocationSortKeys {
    ID
    NAME
    RELEVANCE
  }
  enum WebhookSubscriptionSortKeys {
    CREATED_AT
    ID
    RELEVANCE
  }

  type OrderConnection {
    edges: [OrderEdge!]!
    nodes: [Order!]!
    pageInfo: PageInfo!
  }
  type OrderEdge {
    cursor: String!
    node: Order!
  }
  type Order {
    id: ID!
    legacyResourceId: UnsignedInt64!
    name: String!
    createdAt: DateTime!
    updatedAt: DateTime!
    processedAt: DateTime!
    cancelledAt: DateTime
    retailLocation: Location
    lineItems(first: Int, after: String, last: Int, before: String, reverse: Boolean = false): LineItemConnection!
    fulfillments(first: Int, query: String): [Fulfillment!]!
    refunds(first: Int): [Refund!]!
  }

  type MoneyV2 {
    amount: Decimal!
    currencyCode: String!
  }
  type MoneyBag {
    shopMoney: MoneyV2!
    presentmentMoney: MoneyV2!
  }

  type LineItemConnection {
    edges: [LineItemEdge!]!
    nodes: [LineItem!]!
    pageInfo: PageInfo!
  }
  type LineItemEdge {
    cursor: String!
    node: LineItem!
  }
  type LineItem {
    id: ID!
    sku: String
    title: String!
    name: String!
    quantity: Int!
    currentQuantity: Int!
    fulfillableQuantity: Int! @deprecated(reason: "Use FulfillmentOrderLineItem#remainingQuantity instead.")
    unfulfilledQuantity: Int!
    originalUnitPriceSet: MoneyBag!
  }

  enum FulfillmentStatus {
    PENDING
    OPEN
    SUCCESS
    CANCELLED
    ERROR
    FAILURE
  }
  type Fulfillment {
    id: ID!
    legacyResourceId: UnsignedInt64!
    name: String!
    status: FulfillmentStatus!
    createdAt: DateTime!
    location: Location
    fulfillmentLineItems(first: Int, after: String, last: Int, before: String, reverse: Boolean = false): FulfillmentLineItemConnection!
  }
  type FulfillmentLineItemConnection {
    edges: [FulfillmentLineItemEdge!]!
    nodes: [FulfillmentLineItem!]!
    pageInfo: PageInfo!
  }
  type FulfillmentLineItemEdge {
    cursor: String!
    node: FulfillmentLineItem!
  }
  type FulfillmentLineItem {
    id: ID!
    quantity: Int
    lineItem: LineItem!
  }

  enum RefundLineItemRestockType {
    RETURN
    CANCEL
    LEGACY_RESTOCK
    NO_RESTOCK
  }
  type Refund {
    id: ID!
    legacyResourceId: UnsignedInt64!
    createdAt: DateTime
    refundLineItems(first: Int, after: String, last: Int, before: String, reverse: Boolean = false): RefundLineItemConnection!
  }
  type RefundLineItemConnection {
    edges: [RefundLineItemEdge!]!
    nodes: [RefundLineItem!]!
    pageInfo: PageInfo!
  }
  type RefundLineItemEdge {
    cursor: String!
    node: RefundLineItem!
  }
  type RefundLineItem {
    id: ID
    quantity: Int!
    restockType: RefundLineItemRestockType!
    restocked: Boolean!
    location: Location
    lineItem: LineItem!
  }

  type LocationConnection {
    edges: [LocationEdge!]!
    nodes: [Location!]!
    pageInfo: PageInfo!
  }
  type LocationEdge {
    cursor: String!
    node: Location!
  }
  type Location {
    id: ID!
    legacyResourceId: UnsignedInt64!
    name: String!
    isActive: Boolean!
  }

  enum WebhookSubscriptionTopic {
    ORDERS_CREATE
    ORDERS_UPDATED
    ORDERS_CANCELLED
    ORDERS_FULFILLED
    ORDERS_PAID
    REFUNDS_CREATE
  }
  enum WebhookSubscriptionFormat {
    JSON
    XML
  }
  input WebhookSubscriptionInput {
    format: WebhookSubscriptionFormat
    includeFields: [String!]
    filter: String
    uri: String
  }
  type WebhookSubscriptionConnection {
    edges: [WebhookSubscriptionEdge!]!
    nodes: [WebhookSubscription!]!
    pageInfo: PageInfo!
  }
  type WebhookSubscriptionEdge {
    cursor: String!
    node: WebhookSubscription!
  }
  type WebhookSubscription {
    id: ID!
    legacyResourceId: UnsignedInt64!
    topic: WebhookSubscriptionTopic!
    uri: String!
    format: WebhookSubscriptionFormat!
    createdAt: DateTime!
    updatedAt: DateTime!
  }
  type UserError {
    field: [String!]
    message: String!
  }
  type WebhookSubscriptionCreatePayload {
    userErrors: [UserError!]!
    webhookSubscription: WebhookSubscription
  }
`;
