/**
 * A fake Google OAuth token endpoint and GCE metadata server, checking what
 * the real ones check: the service-account JWT-bearer grant (RS256 signature
 * against the key's public half, iss, aud, scope, iat/exp), the refresh-token
 * grant of gcloud user credentials, and `Metadata-Flavor: Google` on every
 * metadata request. Errors come in OAuth's `{error, error_description}` shape.
 */

import { type KeyObject, createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { listenLocal, readBodyText, sendJsonUtf8 } from "./http-fake";

const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

export interface FakeGoogleToken {
    /** http://127.0.0.1:PORT */
    url: string;
    /** The token endpoint, for a key file's `token_uri`. */
    tokenUrl: string;
    /** host:port, for GCE_METADATA_HOST. */
    metadataHost: string;
    /** `POST /token grant_type` or `GET /computeMetadata/...`, in arrival order. */
    seen: string[];
    /** A service-account key file's JSON, its public key registered here. */
    serviceAccount(project: string, email?: string): Record<string, string>;
    /** gcloud user credentials (`application_default_credentials.json`) this endpoint accepts. */
    userCredentials(): Record<string, string>;
    /** The project the metadata server reports. */
    metadataProject: string;
    /** Whether this endpoint issued the token (and it has not expired). */
    issued(token: string): boolean;
    /** `refuse`: every grant fails with invalid_grant; `hang`: no answer at all. */
    mode: "ok" | "refuse" | "hang";
    /** The lifetime of the tokens it issues (Google's: 3599 s). */
    expiresInSeconds: number;
    close(): Promise<void>;
}

export async function startFakeGoogleToken(): Promise<FakeGoogleToken> {
    /** Each service account's public keys (the JWT names no key id: any of them may sign). */
    const keys = new Map<string, KeyObject[]>();
    const users = new Map<string, { secret: string; refresh: string }>();
    const tokens = new Map<string, number>();
    const seen: string[] = [];
    let counter = 0;

    const issue = (res: ServerResponse): void => {
        const token = `ya29.fake-${++counter}-${Date.now().toString(36)}`;
        tokens.set(token, Date.now() + fake.expiresInSeconds * 1000);
        sendJsonUtf8(res, 200, {
            access_token: token,
            expires_in: fake.expiresInSeconds,
            token_type: "Bearer",
        });
    };

    const server = await listenLocal((req, res) => {
        void handle(req, res).catch((error: unknown) => {
            sendJsonUtf8(res, 500, { error: "internal_failure", error_description: String(error) });
        });
    });

    async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
        const body = await readBodyText(req);
        const path = (req.url ?? "/").split("?")[0]!;
        if (path.startsWith("/computeMetadata/")) {
            seen.push(`GET ${path}`);
            if (fake.mode === "hang") return;
            if (req.headers["metadata-flavor"] !== "Google") {
                res.writeHead(403, { "content-type": "text/plain" }).end(
                    "Missing Metadata-Flavor:Google header."
                );
                return;
            }
            const headers = { "metadata-flavor": "Google" };
            if (
                path === "/computeMetadata/v1/instance" ||
                path === "/computeMetadata/v1/instance/"
            ) {
                res.writeHead(200, { ...headers, "content-type": "text/plain" }).end(
                    "attributes/\n"
                );
            } else if (path === "/computeMetadata/v1/project/project-id") {
                res.writeHead(200, { ...headers, "content-type": "text/plain" }).end(
                    fake.metadataProject
                );
            } else if (path === "/computeMetadata/v1/instance/service-accounts/default/token") {
                const scopes = new URL(req.url!, "http://x").searchParams.get("scopes") ?? "";
                if (!scopes.split(",").includes(CLOUD_PLATFORM)) {
                    sendJsonUtf8(res, 400, { error: "invalid_scope", error_description: "scope" });
                    return;
                }
                if (fake.mode === "refuse") {
                    sendJsonUtf8(res, 403, {
                        error: "access_denied",
                        error_description: "no service account",
                    });
                    return;
                }
                res.setHeader("metadata-flavor", "Google");
                issue(res);
            } else {
                res.writeHead(404, headers).end();
            }
            return;
        }
        if (req.method !== "POST" || path !== "/token") {
            res.writeHead(404).end();
            return;
        }
        const form = new URLSearchParams(body);
        seen.push(`POST /token ${form.get("grant_type")}`);
        if (fake.mode === "hang") return;
        if (!String(req.headers["content-type"]).startsWith("application/x-www-form-urlencoded")) {
            sendJsonUtf8(res, 400, {
                error: "invalid_request",
                error_description: "form body required",
            });
            return;
        }
        if (fake.mode === "refuse") {
            sendJsonUtf8(res, 400, {
                error: "invalid_grant",
                error_description: "Token has been expired or revoked.",
            });
            return;
        }
        if (form.get("grant_type") === JWT_BEARER) {
            const problem = checkAssertion(form.get("assertion") ?? "", keys);
            if (problem) {
                sendJsonUtf8(res, 400, { error: "invalid_grant", error_description: problem });
                return;
            }
            issue(res);
            return;
        }
        if (form.get("grant_type") === "refresh_token") {
            const user = users.get(form.get("client_id") ?? "");
            if (!user || user.secret !== form.get("client_secret")) {
                sendJsonUtf8(res, 401, {
                    error: "invalid_client",
                    error_description: "Unauthorized",
                });
                return;
            }
            if (user.refresh !== form.get("refresh_token")) {
                sendJsonUtf8(res, 400, {
                    error: "invalid_grant",
                    error_description: "Bad Request",
                });
                return;
            }
            issue(res);
            return;
        }
        sendJsonUtf8(res, 400, {
            error: "unsupported_grant_type",
            error_description: "Invalid grant_type",
        });
    }

    const { port } = server;
    const url = `http://127.0.0.1:${port}`;

    const fake: FakeGoogleToken = {
        url,
        tokenUrl: `${url}/token`,
        metadataHost: `127.0.0.1:${port}`,
        seen,
        metadataProject: "metadata-project",
        mode: "ok",
        expiresInSeconds: 3599,
        serviceAccount(project, email = `north-test@${project}.iam.gserviceaccount.com`) {
            const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
            const own = keys.get(email) ?? [];
            own.push(createPublicKey(publicKey.export({ type: "spki", format: "pem" })));
            keys.set(email, own);
            const keyId = `key-${own.length}`;
            return {
                type: "service_account",
                project_id: project,
                private_key_id: keyId,
                private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
                client_email: email,
                client_id: "1234567890",
                token_uri: `${url}/token`,
            };
        },
        userCredentials() {
            const id = `client-${users.size + 1}.apps.googleusercontent.com`;
            const user = {
                secret: "d-FL95Q19q7MQmFpd7hHD0Ty",
                refresh: `1//refresh-${users.size + 1}`,
            };
            users.set(id, user);
            return {
                type: "authorized_user",
                client_id: id,
                client_secret: user.secret,
                refresh_token: user.refresh,
                token_uri: `${url}/token`,
            };
        },
        issued(token) {
            const expires = tokens.get(token);
            return expires !== undefined && expires > Date.now();
        },
        close: () => server.close(),
    };
    return fake;
}

/** What Google would say about a JWT-bearer assertion, or undefined when it is good. */
function checkAssertion(assertion: string, keys: Map<string, KeyObject[]>): string | undefined {
    const parts = assertion.split(".");
    if (parts.length !== 3) return "Invalid JWT: not three parts";
    const [head, claims, signature] = parts as [string, string, string];
    const header = decode(head);
    const payload = decode(claims);
    if (!header || !payload) return "Invalid JWT: not base64url JSON";
    if (header["alg"] !== "RS256") return `Invalid JWT: alg ${String(header["alg"])}`;
    const signed = Buffer.from(`${head}.${claims}`);
    const good = (keys.get(String(payload["iss"])) ?? []).some((key) =>
        verify("RSA-SHA256", signed, key, Buffer.from(signature, "base64url"))
    );
    if (!good) return "Invalid JWT Signature.";
    if (payload["aud"] !== GOOGLE_TOKEN_URL) return `Invalid JWT: aud ${String(payload["aud"])}`;
    const scopes = String(payload["scope"] ?? "").split(" ");
    if (!scopes.includes(CLOUD_PLATFORM)) return "Invalid JWT: scope lacks cloud-platform";
    const now = Math.floor(Date.now() / 1000);
    const iat = Number(payload["iat"]);
    const exp = Number(payload["exp"]);
    if (!(iat <= now + 60) || !(exp > now) || exp - iat > 3600) {
        return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.";
    }
    return undefined;
}

function decode(part: string): Record<string, unknown> | undefined {
    try {
        const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
        return typeof value === "object" && value !== null
            ? (value as Record<string, unknown>)
            : undefined;
    } catch {
        return undefined;
    }
}
