// The memory store against the InboxStore conformance suite.
import { memoryStore } from "../src/index.js";
import { testInboxStore } from "../src/testing/index.js";

testInboxStore("memory", () => memoryStore());
