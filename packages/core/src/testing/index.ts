// @einvoice/core/testing: conformance suites that every adapter must pass.
export { testStore, type StoreFactory } from "./store-suite.js";
export { testDeliveryStore, type DeliveryFixture } from "./delivery-suite.js";
export { testWebhookStore } from "./webhook-suite.js";
export { testWorkerFairness } from "./fairness-suite.js";
export { testNetwork, type NetworkFactory, type NetworkFixture, type NetworkSuiteOptions } from "./network-suite.js";
export { sampleInvoiceRecord, sampleCompany, sampleInboundRecord } from "./fixtures.js";
export { testInboxStore, type InboxStoreFactory } from "./inbox-suite.js";
export { testDiscovery, type DiscoveryFactory, type DiscoveryFixture } from "./discovery-suite.js";
export { seededRandom } from "./random.js";
