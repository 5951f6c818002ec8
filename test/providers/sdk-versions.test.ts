import { VERSION as ANTHROPIC_INSTALLED } from "@anthropic-ai/sdk/version";
import { VERSION as OPENAI_INSTALLED } from "openai/version";
import { describe, expect, it } from "vitest";
import { ANTHROPIC_SDK_VERSION } from "../../src/providers/anthropic";
import { OPENAI_SDK_VERSION } from "../../src/providers/openai-direct";

// Direct requests name the SDK release in their headers without importing it;
// after an SDK upgrade, update the constant (the direct request must stay the SDK's).
describe("the SDK release named by direct requests", () => {
    it("is the installed Anthropic SDK", () => {
        expect(ANTHROPIC_SDK_VERSION).toBe(ANTHROPIC_INSTALLED);
    });

    it("is the installed OpenAI SDK", () => {
        expect(OPENAI_SDK_VERSION).toBe(OPENAI_INSTALLED);
    });
});
