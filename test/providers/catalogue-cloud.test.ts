import { describe, expect, it } from "vitest";
import { wireModelId } from "../../src/providers/catalogue";
import {
    bedrockModelId,
    catalogueIdOf,
    claudeCloudFromEnv,
    vertexModelId,
} from "../../src/providers/cloud-model-ids";
import { buildCatalogue, resolveModel } from "../../src/providers/models";
import { withCloudProviders } from "./catalogue-kit";

function resolved(env: Record<string, string>, name: string) {
    const catalogue = buildCatalogue(withCloudProviders(), [], { env });
    const r = resolveModel(catalogue, name);
    if (!r.ok) throw new Error(r.error);
    return r;
}

describe("Claude Code's cloud switches", () => {
    it("reads the switches as Claude Code does (1/true), Bedrock first", () => {
        expect(claudeCloudFromEnv({})).toBeUndefined();
        expect(claudeCloudFromEnv({ CLAUDE_CODE_USE_BEDROCK: "0" })).toBeUndefined();
        expect(claudeCloudFromEnv({ CLAUDE_CODE_USE_VERTEX: "true" })).toBe("vertex");
        expect(claudeCloudFromEnv({ CLAUDE_CODE_USE_FOUNDRY: "1" })).toBe("foundry");
        expect(
            claudeCloudFromEnv({ CLAUDE_CODE_USE_VERTEX: "1", CLAUDE_CODE_USE_BEDROCK: "1" })
        ).toBe("bedrock");
    });

    it("routes aliases and ids of Claude models to Bedrock with the region's inference profile", () => {
        const env = { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "eu-west-1" };
        const opus = resolved(env, "opus-5-5");
        expect(opus.provider.id).toBe("bedrock");
        expect(wireModelId(opus.model)).toBe("eu.anthropic.claude-opus-5-5");
        // Limits and prices stay the catalogue's.
        expect(opus.model.pricing?.input).toBe(4);
        const dated = resolved({ ...env, AWS_REGION: "us-east-1" }, "claude-sonnet-4-5-20250929");
        expect(wireModelId(dated.model)).toBe("us.anthropic.claude-sonnet-4-5-20250929-v1:0");
        // A -thinking twin keeps its budget and sends the cloud id.
        const thinking = resolved({ ...env, AWS_REGION: "ap-northeast-1" }, "sonnet-4-5-thinking");
        expect(wireModelId(thinking.model)).toBe("apac.anthropic.claude-sonnet-4-5-20250929-v1:0");
        expect(thinking.model.thinkingBudget).toBeGreaterThan(0);
        // GPT models are not Claude's: they stay with OpenAI.
        expect(resolved(env, "gpt-6.2-sol").provider.id).toBe("openai");
    });

    it("routes to Vertex with name@date ids and to Foundry with deployment names", () => {
        const vertex = resolved({ CLAUDE_CODE_USE_VERTEX: "1" }, "opus-4-5");
        expect(vertex.provider.id).toBe("vertex");
        expect(wireModelId(vertex.model)).toBe("claude-opus-4-5@20251101");
        expect(wireModelId(resolved({ CLAUDE_CODE_USE_VERTEX: "1" }, "opus-5-5").model)).toBe(
            "claude-opus-5-5"
        );
        const foundry = resolved({ CLAUDE_CODE_USE_FOUNDRY: "1" }, "haiku-4-5");
        expect(foundry.provider.id).toBe("foundry");
        expect(wireModelId(foundry.model)).toBe("claude-haiku-4-5");
    });

    it("takes Claude Code's ANTHROPIC_MODEL as the default when a switch is on", () => {
        const env = {
            CLAUDE_CODE_USE_BEDROCK: "1",
            ANTHROPIC_MODEL: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        };
        const catalogue = buildCatalogue(withCloudProviders(), [], { env });
        expect(catalogue.defaultModelId).toBe(
            "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0"
        );
        const r = resolveModel(catalogue, catalogue.defaultModelId);
        expect(r.ok && [r.provider.id, wireModelId(r.model), r.model.maxOutputTokens]).toEqual([
            "bedrock",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            64_000,
        ]);
        // An alias in ANTHROPIC_MODEL is North's alias, routed.
        const byAlias = buildCatalogue(withCloudProviders(), [], {
            env: { CLAUDE_CODE_USE_BEDROCK: "1", ANTHROPIC_MODEL: "haiku-5-5" },
        });
        expect(byAlias.defaultModelId).toBe("haiku-5-5");
        // And the small fast model from ANTHROPIC_DEFAULT_HAIKU_MODEL.
        const small = buildCatalogue(withCloudProviders(), [], {
            env: {
                CLAUDE_CODE_USE_BEDROCK: "1",
                ANTHROPIC_DEFAULT_HAIKU_MODEL: "global.anthropic.claude-haiku-5-5",
            },
        });
        expect(small.smallFastModelId).toBe("bedrock:global.anthropic.claude-haiku-5-5");
    });
});

describe("cloud ids back to the catalogue", () => {
    it("maps each cloud's id shape to the catalogue id", () => {
        expect(catalogueIdOf("us.anthropic.claude-opus-4-5-20251101-v1:0")).toBe(
            "claude-opus-4-5-20251101"
        );
        expect(catalogueIdOf("global.anthropic.claude-opus-5-5")).toBe("claude-opus-5-5");
        expect(catalogueIdOf("anthropic.claude-haiku-4-5-20251001-v1:0")).toBe(
            "claude-haiku-4-5-20251001"
        );
        expect(
            catalogueIdOf(
                "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-5-5"
            )
        ).toBe("claude-sonnet-5-5");
        expect(catalogueIdOf("claude-sonnet-4-5@20250929")).toBe("claude-sonnet-4-5-20250929");
        expect(catalogueIdOf("anthropic/claude-sonnet-4.5")).toBe("claude-sonnet-4-5");
        expect(catalogueIdOf("google/gemini-3.8-flash")).toBe("gemini-3.8-flash");
        // Round trips.
        expect(catalogueIdOf(bedrockModelId("claude-opus-4-1-20250805", "us-west-2"))).toBe(
            "claude-opus-4-1-20250805"
        );
        expect(catalogueIdOf(vertexModelId("claude-opus-4-1-20250805"))).toBe(
            "claude-opus-4-1-20250805"
        );
    });

    it("gives provider:cloud-id the catalogue entry's limits, prices, images and thinking", () => {
        const cases: Array<[string, string, string]> = [
            [
                "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                "bedrock",
                "Claude Sonnet 4.5",
            ],
            ["vertex:claude-opus-4-5@20251101", "vertex", "Claude Opus 4.5"],
            ["openrouter:anthropic/claude-sonnet-4.5", "openrouter", "Claude Sonnet 4.5"],
            ["openrouter:anthropic/claude-opus-5.5", "openrouter", "Claude Opus 5.5"],
            ["vertex:gemini-3.8-flash", "vertex", "Gemini 3.8 Flash"],
            ["gemini:gemini-3.8-flash", "gemini", "Gemini 3.8 Flash"],
        ];
        for (const [name, provider, display] of cases) {
            const r = resolved({}, name);
            expect(r.provider.id, name).toBe(provider);
            expect(r.model.display, name).toContain(display);
            expect(r.model.pricing, name).toBeDefined();
            expect(r.model.images, name).toBe(true);
            expect(r.model.thinking, name).toBeDefined();
            // The id typed is the id sent.
            expect(wireModelId(r.model), name).toBe(name.slice(name.indexOf(":") + 1));
        }
        const unknown = resolved({}, "bedrock:meta.llama9-v1:0");
        expect(unknown.model.pricing).toBeUndefined();
        expect(unknown.model.display).toBe("meta.llama9-v1:0");
    });
});
