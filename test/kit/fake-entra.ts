/**
 * A local Microsoft Entra ID token service for `@azure/identity`: the
 * client-credentials grant of a tenant (`AZURE_AUTHORITY_HOST`, which the
 * library only accepts over https: put `startTlsFront` in front), and the App
 * Service managed-identity endpoint (`IDENTITY_ENDPOINT` / `IDENTITY_HEADER`,
 * plain http on the machine). It checks what the real service checks: the
 * client secret, the identity header, the resource/scope asked for, and
 * answers refusals in Entra's error shape (`error`, `error_description`).
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { listenLocal, readBodyText, sendJsonUtf8 } from "./http-fake";

export interface FakeEntraOptions {
    tenantId?: string;
    clientId?: string;
    clientSecret?: string;
    /** The `X-IDENTITY-HEADER` value the managed-identity endpoint insists on. */
    identityHeader?: string;
    /** Lifetime of issued tokens in seconds (default an hour). */
    expiresInSeconds?: number;
}

export interface FakeEntra {
    /** http://127.0.0.1:PORT */
    url: string;
    /** The managed-identity endpoint, for IDENTITY_ENDPOINT. */
    identityEndpoint: string;
    /** Tokens issued so far, each with the audience it was issued for. */
    issued: Array<{ token: string; audience: string }>;
    /** Every request: `METHOD path`. */
    seen: string[];
    /** Refuse every token request (an expired secret, a revoked identity). */
    refuse(description: string | null): void;
    /** Hold token requests without an answer until the server closes. */
    hang(on: boolean): void;
    /** Is this a bearer token the service issued for `audience`? */
    accepts(token: string, audience: string): boolean;
    close(): Promise<void>;
}

export async function startFakeEntra(opts: FakeEntraOptions = {}): Promise<FakeEntra> {
    const tenantId = opts.tenantId ?? "00000000-0000-0000-0000-00000000cafe";
    const clientId = opts.clientId ?? "11111111-2222-3333-4444-555555555555";
    const clientSecret = opts.clientSecret ?? "fake-secret";
    const identityHeader = opts.identityHeader ?? "fake-identity-header";
    const lifetime = opts.expiresInSeconds ?? 3600;
    const issued: FakeEntra["issued"] = [];
    const seen: string[] = [];
    let refusal: string | null = null;
    let hanging = false;
    let counter = 0;

    const issue = (audience: string): string => {
        const token = `fake-entra-token-${++counter}`;
        issued.push({ token, audience });
        return token;
    };

    const server = await listenLocal((req, res) => {
        void handle(req, res).catch((error: unknown) => {
            sendJsonUtf8(res, 500, { error: "server_error", error_description: String(error) });
        });
    });

    async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
        const body = await readBodyText(req);
        // Behind the TLS front the Host header names the front; the path is what matters.
        const url = new URL(req.url ?? "/", "http://fake-entra");
        seen.push(`${req.method} ${url.pathname}`);
        const origin = `https://${req.headers.host ?? "localhost"}`;
        if (
            req.method === "GET" &&
            url.pathname === `/${tenantId}/v2.0/.well-known/openid-configuration`
        ) {
            sendJsonUtf8(res, 200, openIdConfiguration(origin, tenantId));
            return;
        }
        if (url.pathname.endsWith("/.well-known/openid-configuration")) {
            sendJsonUtf8(res, 400, {
                error: "invalid_tenant",
                error_description: `AADSTS90002: Tenant '${url.pathname.split("/")[1]}' not found.`,
            });
            return;
        }
        if (hanging) return; // no answer: the client's own limit must end the wait
        if (req.method === "POST" && url.pathname === `/${tenantId}/oauth2/v2.0/token`) {
            const form = new URLSearchParams(body);
            if (form.get("grant_type") !== "client_credentials") {
                sendJsonUtf8(
                    res,
                    400,
                    oauthError("unsupported_grant_type", "AADSTS70003: grant type not supported.")
                );
                return;
            }
            if (form.get("client_id") !== clientId) {
                sendJsonUtf8(
                    res,
                    400,
                    oauthError(
                        "unauthorized_client",
                        `AADSTS700016: Application with identifier '${form.get("client_id")}' was not found in the directory.`
                    )
                );
                return;
            }
            if (refusal !== null || form.get("client_secret") !== clientSecret) {
                sendJsonUtf8(
                    res,
                    401,
                    oauthError(
                        "invalid_client",
                        refusal ?? "AADSTS7000215: Invalid client secret provided."
                    )
                );
                return;
            }
            const scope = form.get("scope") ?? "";
            if (!scope.endsWith("/.default")) {
                sendJsonUtf8(
                    res,
                    400,
                    oauthError(
                        "invalid_scope",
                        `AADSTS70011: The provided value for scope ${scope} is not valid.`
                    )
                );
                return;
            }
            const audience = scope.slice(0, -"/.default".length);
            sendJsonUtf8(res, 200, {
                token_type: "Bearer",
                expires_in: lifetime,
                ext_expires_in: lifetime,
                access_token: issue(audience),
            });
            return;
        }
        if (req.method === "GET" && url.pathname === "/msi/token") {
            if (req.headers["x-identity-header"] !== identityHeader) {
                sendJsonUtf8(res, 401, {
                    statusCode: 401,
                    message: "Unauthorized request: X-IDENTITY-HEADER is missing or wrong",
                });
                return;
            }
            const resource = url.searchParams.get("resource");
            if (!url.searchParams.get("api-version") || !resource) {
                sendJsonUtf8(res, 400, {
                    statusCode: 400,
                    message: "api-version and resource are required",
                });
                return;
            }
            if (refusal !== null) {
                sendJsonUtf8(res, 400, {
                    statusCode: 400,
                    message: refusal,
                    error: "invalid_request",
                    error_description: refusal,
                });
                return;
            }
            const expiresOn = Math.floor(Date.now() / 1000) + lifetime;
            sendJsonUtf8(res, 200, {
                access_token: issue(resource.replace(/\/$/, "")),
                expires_on: String(expiresOn),
                resource,
                token_type: "Bearer",
                client_id: clientId,
            });
            return;
        }
        sendJsonUtf8(
            res,
            404,
            oauthError("not_found", `fake Entra: no route ${req.method} ${url.pathname}`)
        );
    }

    const { port } = server;
    const url = `http://127.0.0.1:${port}`;
    return {
        url,
        identityEndpoint: `${url}/msi/token`,
        issued,
        seen,
        refuse: (description) => void (refusal = description),
        hang: (on) => void (hanging = on),
        accepts: (token, audience) =>
            issued.some((entry) => entry.token === token && entry.audience === audience),
        close: () => server.close(),
    };
}

/** The fields MSAL reads from a tenant's discovery document. */
function openIdConfiguration(origin: string, tenantId: string): Record<string, unknown> {
    return {
        token_endpoint: `${origin}/${tenantId}/oauth2/v2.0/token`,
        authorization_endpoint: `${origin}/${tenantId}/oauth2/v2.0/authorize`,
        end_session_endpoint: `${origin}/${tenantId}/oauth2/v2.0/logout`,
        device_authorization_endpoint: `${origin}/${tenantId}/oauth2/v2.0/devicecode`,
        issuer: `${origin}/${tenantId}/v2.0`,
        jwks_uri: `${origin}/${tenantId}/discovery/v2.0/keys`,
        response_types_supported: ["code", "id_token", "code id_token", "id_token token"],
        scopes_supported: ["openid", "profile", "email", "offline_access"],
    };
}

function oauthError(error: string, description: string): Record<string, unknown> {
    return {
        error,
        error_description: description,
        error_codes: [Number(description.match(/AADSTS(\d+)/)?.[1] ?? 0)],
        timestamp: new Date().toISOString(),
        trace_id: "00000000-0000-0000-0000-000000000000",
        correlation_id: "00000000-0000-0000-0000-000000000000",
    };
}
