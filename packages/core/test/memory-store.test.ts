import { memoryStore } from "../src/index.js";
import { testStore } from "../src/testing/index.js";

testStore("memory", () => memoryStore());
