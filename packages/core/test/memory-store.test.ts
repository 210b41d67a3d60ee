import { memoryStore } from "../src/index.js";
import { testDeliveryStore, testStore, testWebhookStore } from "../src/testing/index.js";

testStore("memory", () => memoryStore());

testDeliveryStore("memory", async () => {
  const s = memoryStore();
  return { a: s, b: s, close: async () => {} };
});

testWebhookStore("memory", () => memoryStore());
