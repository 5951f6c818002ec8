import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createBedrockProvider } from "../../src/providers/bedrock/bedrock-provider";
import type { ProviderEndpoint } from "../../src/providers/types";
import {
    FAKE_AWS_KEY_ID,
    FAKE_AWS_SECRET,
    type FakeBedrock,
    HAIKU_BEDROCK_ID,
    SONNET_BEDROCK_ID,
    SONNET_PROFILE_ID,
    startFakeBedrock,
} from "../kit/fake-bedrock";
import {
    type FakeCredentialServices,
    startFakeCredentialServices,
} from "../kit/fake-bedrock-credentials";
import { verifySigV4 } from "../kit/fake-bedrock-sigv4";
import { type TestProxy, startTestProxy } from "../kit/test-proxy";
import { collect, doneOf, errorOf, request } from "./helpers";

const ISSUED = {
    accessKeyId: "ASIAFAKEISSUED000001",
    secretAccessKey: "issuedSecret",
    sessionToken: "issued-session-token",
};
const PROFILE_KEY = { id: "AKIAFAKEPROFILE00001", secret: "profileSecret" };

let east: FakeBedrock;
let west: FakeBedrock;
let services: FakeCredentialServices;
let home: string;
/** What the credential services issue; a test shortens the lifetime. */
const issued = { ...ISSUED, lifetimeMs: 60 * 60 * 1000 };

beforeAll(async () => {
    const keys = {
        [FAKE_AWS_KEY_ID]: { secretAccessKey: FAKE_AWS_SECRET },
        [ISSUED.accessKeyId]: {
            secretAccessKey: ISSUED.secretAccessKey,
            sessionToken: ISSUED.sessionToken,
        },
        [PROFILE_KEY.id]: { secretAccessKey: PROFILE_KEY.secret },
    };
    east = await startFakeBedrock({ keys });
    west = await startFakeBedrock({ keys, region: "eu-west-1" });
    services = await startFakeCredentialServices({
        issued,
        containerToken: "container-auth-token",
        webIdentityToken: "eyJ.fake.web-identity",
        roleArn: "arn:aws:iam::123456789012:role/north",
    });
});
afterAll(async () => {
    await Promise.all([east.close(), west.close(), services.close()]);
});

beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "north-aws-"));
    // Nothing from this machine's AWS set-up reaches the chain.
    for (const name of [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_BEARER_TOKEN_BEDROCK",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ROLE_ARN",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN",
    ]) {
        vi.stubEnv(name, "");
    }
    vi.stubEnv("HOME", home);
    vi.stubEnv("AWS_CONFIG_FILE", join(home, ".aws", "config"));
    vi.stubEnv("AWS_SHARED_CREDENTIALS_FILE", join(home, ".aws", "credentials"));
    vi.stubEnv("AWS_EC2_METADATA_DISABLED", "true");
    vi.stubEnv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", east.url);
    vi.stubEnv("AWS_ENDPOINT_URL_BEDROCK", east.url);
});
afterEach(() => {
    vi.unstubAllEnvs();
});

function writeAwsFile(name: "config" | "credentials", text: string): void {
    mkdirSync(join(home, ".aws"), { recursive: true });
    writeFileSync(join(home, ".aws", name), text);
}

const endpoint = (cloud: ProviderEndpoint["cloud"] = {}): ProviderEndpoint => ({
    api: "bedrock",
    apiKey: "not-needed",
    auth: "aws",
    cloud,
});

describe("AWS credential chain", () => {
    it("takes a named profile's keys from the credentials file and its region from the config file", async () => {
        writeAwsFile(
            "credentials",
            `[dev]\naws_access_key_id = ${PROFILE_KEY.id}\naws_secret_access_key = ${PROFILE_KEY.secret}\n`
        );
        writeAwsFile("config", "[profile dev]\nregion = eu-west-1\n");
        vi.stubEnv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", west.url);
        west.enqueue({ text: "from the profile" });
        const result = await collect(
            createBedrockProvider(endpoint({ profile: "dev" })),
            request({ apiModelId: SONNET_BEDROCK_ID })
        );
        expect(result.text).toBe("from the profile");
        expect(west.requests.at(-1)).toMatchObject({ accessKeyId: PROFILE_KEY.id, auth: "sigv4" });
    });

    it("says to run `aws sso login --profile X` when the SSO session has expired", async () => {
        writeAwsFile(
            "config",
            [
                "[profile dev-sso]",
                "sso_session = corp",
                "sso_account_id = 123456789012",
                "sso_role_name = Developer",
                "region = us-east-1",
                "[sso-session corp]",
                "sso_start_url = https://corp.awsapps.example/start",
                "sso_region = us-east-1",
                "",
            ].join("\n")
        );
        const cache = join(home, ".aws", "sso", "cache");
        mkdirSync(cache, { recursive: true });
        writeFileSync(
            join(cache, `${createHash("sha1").update("corp").digest("hex")}.json`),
            JSON.stringify({
                accessToken: "expired-sso-token",
                expiresAt: new Date(Date.now() - 3_600_000).toISOString(),
                region: "us-east-1",
                startUrl: "https://corp.awsapps.example/start",
            })
        );
        vi.stubEnv("AWS_PROFILE", "dev-sso");
        const before = east.requests.length;
        const error = errorOf(
            await collect(
                createBedrockProvider(endpoint()),
                request({ apiModelId: SONNET_PROFILE_ID })
            )
        ).error;
        expect(error).toMatchObject({ kind: "auth", retryable: false });
        expect(error.message).toMatch(
            /^Amazon Bedrock: no usable AWS credentials from profile "dev-sso" \(/
        );
        expect(error.message).toMatch(/: run `aws sso login --profile dev-sso`$/);
        expect(east.requests.length).toBe(before);
    });

    it("fetches container credentials once and signs with them until they near expiry", async () => {
        vi.stubEnv("AWS_CONTAINER_CREDENTIALS_FULL_URI", services.containerUri);
        vi.stubEnv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "container-auth-token");
        vi.stubEnv("AWS_REGION", "us-east-1");
        const provider = createBedrockProvider(endpoint());
        const calls = services.calls.length;
        east.enqueue({ text: "one" }, { text: "two" });
        expect(
            doneOf(await collect(provider, request({ apiModelId: SONNET_PROFILE_ID }))).stopReason
        ).toBe("end_turn");
        expect(
            doneOf(await collect(provider, request({ apiModelId: SONNET_PROFILE_ID }))).stopReason
        ).toBe("end_turn");
        expect(services.calls.slice(calls)).toEqual(["GET /container-credentials"]);
        expect(east.requests.at(-1)).toMatchObject({ accessKeyId: ISSUED.accessKeyId });
        expect(east.requests.at(-1)!.headers["x-amz-security-token"]).toBe(ISSUED.sessionToken);
    });

    it("fetches new container credentials in the background once the cached ones expire within five minutes", async () => {
        vi.stubEnv("AWS_CONTAINER_CREDENTIALS_FULL_URI", services.containerUri);
        vi.stubEnv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "container-auth-token");
        vi.stubEnv("AWS_REGION", "us-east-1");
        issued.lifetimeMs = 2 * 60 * 1000;
        try {
            const provider = createBedrockProvider(endpoint());
            const calls = services.calls.length;
            east.enqueue({ text: "one" }, { text: "two" });
            expect((await collect(provider, request({ apiModelId: SONNET_PROFILE_ID }))).text).toBe(
                "one"
            );
            expect((await collect(provider, request({ apiModelId: SONNET_PROFILE_ID }))).text).toBe(
                "two"
            );
            // The library keeps signing with the still-valid set while it fetches the next one.
            await vi.waitFor(() =>
                expect(services.calls.slice(calls)).toEqual([
                    "GET /container-credentials",
                    "GET /container-credentials",
                ])
            );
        } finally {
            issued.lifetimeMs = 60 * 60 * 1000;
        }
    });

    it("gives up on a container credentials endpoint that never answers, with what to set instead", async () => {
        const sockets = new Set<Socket>();
        const silent = createServer(() => {});
        silent.on("connection", (socket) => void sockets.add(socket));
        await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
        try {
            const { port } = silent.address() as AddressInfo;
            vi.stubEnv("AWS_CONTAINER_CREDENTIALS_FULL_URI", `http://127.0.0.1:${port}/hangs`);
            vi.stubEnv("AWS_REGION", "us-east-1");
            const before = east.requests.length;
            const error = errorOf(
                await collect(
                    createBedrockProvider(endpoint(), process.env, { credentialDeadlineMs: 300 }),
                    request({ apiModelId: SONNET_PROFILE_ID })
                )
            ).error;
            expect(error).toMatchObject({ kind: "auth", retryable: false });
            expect(error.message).toMatch(
                /^Amazon Bedrock: no usable AWS credentials from the default chain \(the credential chain did not answer within 300 ms\)/
            );
            expect(error.message).toContain("export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
            expect(east.requests.length).toBe(before);
        } finally {
            for (const socket of sockets) socket.destroy();
            await new Promise<void>((resolve) => silent.close(() => resolve()));
        }
    });

    it("exchanges a web identity token at STS, through the proxy like the Bedrock request", async () => {
        const proxy: TestProxy = await startTestProxy();
        try {
            const tokenFile = join(home, "web-identity-token");
            writeFileSync(tokenFile, "eyJ.fake.web-identity");
            vi.stubEnv("AWS_WEB_IDENTITY_TOKEN_FILE", tokenFile);
            vi.stubEnv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/north");
            vi.stubEnv("AWS_ROLE_SESSION_NAME", "north-test");
            vi.stubEnv("AWS_REGION", "us-east-1");
            vi.stubEnv("AWS_ENDPOINT_URL_STS", services.url);
            vi.stubEnv("HTTP_PROXY", proxy.url);
            vi.stubEnv("NO_PROXY", "");
            east.enqueue({ text: "via web identity" });
            const result = await collect(
                createBedrockProvider(endpoint()),
                request({ apiModelId: SONNET_PROFILE_ID })
            );
            expect(result.text).toBe("via web identity");
            expect(services.calls.at(-1)).toBe("POST sts AssumeRoleWithWebIdentity");
            expect(east.requests.at(-1)).toMatchObject({ accessKeyId: ISSUED.accessKeyId });
            expect(proxy.seen).toEqual([
                `POST ${services.url}/`,
                `POST ${east.url}/model/${encodeURIComponent(SONNET_PROFILE_ID)}/invoke-with-response-stream`,
            ]);
        } finally {
            await proxy.close();
        }
    });
});

describe("Bedrock model list and probe", () => {
    beforeEach(() => {
        vi.stubEnv("AWS_ACCESS_KEY_ID", FAKE_AWS_KEY_ID);
        vi.stubEnv("AWS_SECRET_ACCESS_KEY", FAKE_AWS_SECRET);
        vi.stubEnv("AWS_REGION", "us-east-1");
    });

    it("lists the Claude models callable on demand and the inference profiles, signed", async () => {
        const listed = await createBedrockProvider(endpoint()).listModels!(
            new AbortController().signal
        );
        expect(listed).toEqual([
            { id: SONNET_BEDROCK_ID, display: "Claude Sonnet 4.5" },
            { id: HAIKU_BEDROCK_ID, display: "Claude Haiku 4.5" },
            { id: SONNET_PROFILE_ID, display: `US ${SONNET_BEDROCK_ID}` },
        ]);
        expect(east.requests.slice(-2).map((r) => r.path)).toEqual([
            "/foundation-models",
            "/inference-profiles",
        ]);
    });

    it("probes credentials and the endpoint without sending a prompt", async () => {
        const before = east.requests.length;
        const ok = await createBedrockProvider(endpoint()).probe!(new AbortController().signal);
        expect(ok).toEqual({
            ok: true,
            detail: `AWS key AKIA…0001 from the default chain, region us-east-1, ${east.url} lists 2 Claude models`,
        });
        expect(east.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
            "GET /foundation-models",
        ]);
        vi.stubEnv("AWS_SECRET_ACCESS_KEY", "wrong");
        const refused = await createBedrockProvider(endpoint()).probe!(
            new AbortController().signal
        );
        expect(refused.ok).toBe(false);
        expect(refused.detail).toContain("Amazon Bedrock 403: InvalidSignatureException");
        expect(refused.detail).toContain("refresh the AWS credentials");
    });
});

describe("the fake's SigV4 check", () => {
    // AWS's published example (IAM ListUsers, Signature Version 4 signing process).
    it("accepts AWS's published example signature and refuses it once the request changes", () => {
        const headers = {
            host: "iam.amazonaws.com",
            "content-type": "application/x-www-form-urlencoded; charset=utf-8",
            "x-amz-date": "20150830T123600Z",
            authorization:
                "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7",
        };
        const expect_ = {
            keys: new Map([
                ["AKIDEXAMPLE", { secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" }],
            ]),
            region: "us-east-1",
            service: "iam",
            now: Date.parse("2015-08-30T12:36:00Z"),
        };
        const url = "/?Action=ListUsers&Version=2010-05-08";
        expect(
            verifySigV4({ method: "GET", url, headers, body: Buffer.alloc(0) }, expect_)
        ).toEqual({
            ok: true,
            accessKeyId: "AKIDEXAMPLE",
        });
        expect(
            verifySigV4(
                { method: "GET", url: `${url}&MaxItems=1`, headers, body: Buffer.alloc(0) },
                expect_
            )
        ).toMatchObject({ ok: false, type: "InvalidSignatureException" });
    });
});
