import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
    FAKE_AWS_KEY_ID,
    FAKE_AWS_SECRET,
    type FakeBedrock,
    startFakeBedrock,
} from "../kit/fake-bedrock";
import { isolatedHome, runNorth } from "../kit/run-north";

let fake: FakeBedrock;
let repo: string;

beforeAll(async () => {
    fake = await startFakeBedrock({ region: "us-east-1" });
    repo = mkdtempSync(join(tmpdir(), "north-doctor-switch-"));
    mkdirSync(join(repo, ".git"));
});
afterAll(async () => {
    await fake.close();
    rmSync(repo, { recursive: true, force: true });
});

const line = (output: string, label: string) =>
    output.split("\n").find((l) => l.slice(2).startsWith(`${label} `)) ?? "";

describe("north doctor under Claude Code's CLAUDE_CODE_USE_BEDROCK", () => {
    it("checks the model a run would use: the Claude model rerouted to Bedrock, not Anthropic's key", async () => {
        const { home, env } = isolatedHome();
        try {
            const run = await runNorth(["doctor", "--path", repo], {
                env: {
                    ...env,
                    CLAUDE_CODE_USE_BEDROCK: "1",
                    AWS_REGION: "us-east-1",
                    AWS_ACCESS_KEY_ID: FAKE_AWS_KEY_ID,
                    AWS_SECRET_ACCESS_KEY: FAKE_AWS_SECRET,
                    AWS_ENDPOINT_URL: fake.url,
                    AWS_EC2_METADATA_DISABLED: "true",
                },
            });
            expect(line(run.stdout, "bedrock")).toMatch(
                /^✓ bedrock +the selected model's provider; credentials from the AWS credential chain/
            );
            // Without the rerouting the default model would be Anthropic's and its missing key a failure.
            expect(line(run.stdout, "anthropic")).toMatch(/^! .*ANTHROPIC_API_KEY is not set/);
        } finally {
            rmSync(home, { recursive: true, force: true });
        }
    });
});
