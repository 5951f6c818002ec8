import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
    FAKE_AWS_KEY_ID,
    FAKE_AWS_SECRET,
    type FakeBedrock,
    SONNET_PROFILE_ID,
    startFakeBedrock,
} from "../kit/fake-bedrock";
import { isolatedHome, runNorth } from "../kit/run-north";

let fake: FakeBedrock;

beforeAll(async () => {
    fake = await startFakeBedrock({ region: "eu-central-1" });
});
afterAll(async () => {
    await fake.close();
});

/** A temp HOME whose ~/.aws holds a profile's keys and region, as `aws configure` writes them. */
function awsHome(): NodeJS.ProcessEnv {
    const { home, env } = isolatedHome();
    mkdirSync(join(home, ".aws"), { recursive: true });
    writeFileSync(
        join(home, ".aws", "credentials"),
        `[work]\naws_access_key_id = ${FAKE_AWS_KEY_ID}\naws_secret_access_key = ${FAKE_AWS_SECRET}\n`
    );
    writeFileSync(join(home, ".aws", "config"), "[profile work]\nregion = eu-central-1\n");
    return {
        ...env,
        AWS_PROFILE: "work",
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: fake.url,
        AWS_EC2_METADATA_DISABLED: "true",
    };
}

describe("north -p --model bedrock:…", () => {
    it("answers through Bedrock with the profile's credentials and region, retrying a throttled request", async () => {
        fake.enqueue(
            {
                error: {
                    status: 429,
                    message: "Too many requests, please wait before trying again.",
                },
            },
            { text: "Hello from Bedrock in print mode" }
        );
        const before = fake.requests.length;
        const run = await runNorth(["-p", "say hello", "--model", `bedrock:${SONNET_PROFILE_ID}`], {
            env: awsHome(),
        });
        expect(run.stderr).not.toContain("Warning");
        expect(run.code).toBe(0);
        expect(run.stdout.trim()).toBe("Hello from Bedrock in print mode");
        const sent = fake.requests.slice(before);
        expect(sent.map((r) => r.modelId)).toEqual([SONNET_PROFILE_ID, SONNET_PROFILE_ID]);
        expect(sent[1]!.headers.authorization).toContain("/eu-central-1/bedrock/aws4_request");
    });

    it("fails with the refresh hint when the profile's keys are refused", async () => {
        const env = awsHome();
        writeFileSync(
            join(env.HOME!, ".aws", "credentials"),
            `[work]\naws_access_key_id = AKIAUNKNOWNKEY000001\naws_secret_access_key = nope\n`
        );
        const run = await runNorth(["-p", "hi", "--model", `bedrock:${SONNET_PROFILE_ID}`], {
            env,
        });
        expect(run.code).not.toBe(0);
        expect(run.stderr).toContain(
            "Amazon Bedrock 403: UnrecognizedClientException: The security token included in the request is invalid."
        );
        expect(run.stderr).toContain(
            'check profile "work" in ~/.aws/config and ~/.aws/credentials'
        );
    });
});
