/**
 * The AWS credential services a Bedrock user's chain may call, on
 * 127.0.0.1: the container credentials endpoint (ECS/EKS Pod Identity,
 * `AWS_CONTAINER_CREDENTIALS_FULL_URI`) and STS `AssumeRoleWithWebIdentity`
 * (`AWS_WEB_IDENTITY_TOKEN_FILE`), each checking what the real one checks.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { listenLocal, readBodyText, sendJson } from "./http-fake";

export interface IssuedCredentials {
    accessKeyId: string;
    secretAccessKey: string;
    sessionToken: string;
    /** How long each issued set lives. */
    lifetimeMs: number;
}

export interface FakeCredentialServices {
    url: string;
    /** The container endpoint: `${url}/container-credentials`. */
    containerUri: string;
    /** `GET /container-credentials` or `POST sts AssumeRoleWithWebIdentity`, in order. */
    calls: string[];
    close(): Promise<void>;
}

export async function startFakeCredentialServices(options: {
    issued: IssuedCredentials;
    /** The container endpoint's authorization token (`AWS_CONTAINER_AUTHORIZATION_TOKEN`). */
    containerToken: string;
    /** The web identity token STS accepts, and the role. */
    webIdentityToken: string;
    roleArn: string;
}): Promise<FakeCredentialServices> {
    const calls: string[] = [];
    const expiry = () => new Date(Date.now() + options.issued.lifetimeMs).toISOString();

    const server = await listenLocal((req, res) => {
        void handle(req, res);
    });

    async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
        const body = await readBodyText(req);
        const path = (req.url ?? "/").split("?")[0];
        if (req.method === "GET" && path === "/container-credentials") {
            calls.push("GET /container-credentials");
            if (req.headers.authorization !== options.containerToken) {
                sendJson(res, 401, {
                    code: "AccessDenied",
                    message: "invalid authorization token",
                });
                return;
            }
            sendJson(res, 200, {
                AccessKeyId: options.issued.accessKeyId,
                SecretAccessKey: options.issued.secretAccessKey,
                Token: options.issued.sessionToken,
                Expiration: expiry(),
            });
            return;
        }
        const form = new URLSearchParams(body);
        if (req.method === "POST" && form.get("Action") === "AssumeRoleWithWebIdentity") {
            calls.push("POST sts AssumeRoleWithWebIdentity");
            if (
                form.get("WebIdentityToken") !== options.webIdentityToken ||
                form.get("RoleArn") !== options.roleArn ||
                !form.get("RoleSessionName")
            ) {
                stsError(res, 400, "InvalidIdentityToken", "The web identity token is not valid");
                return;
            }
            res.writeHead(200, { "content-type": "text/xml" }).end(
                `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>${options.issued.accessKeyId}</AccessKeyId><SecretAccessKey>${options.issued.secretAccessKey}</SecretAccessKey><SessionToken>${options.issued.sessionToken}</SessionToken><Expiration>${expiry()}</Expiration></Credentials><SubjectFromWebIdentityToken>system:serviceaccount:north</SubjectFromWebIdentityToken><AssumedRoleUser><Arn>${options.roleArn}/north</Arn><AssumedRoleId>AROAFAKE:north</AssumedRoleId></AssumedRoleUser></AssumeRoleWithWebIdentityResult><ResponseMetadata><RequestId>fake-request</RequestId></ResponseMetadata></AssumeRoleWithWebIdentityResponse>`
            );
            return;
        }
        calls.push(`${req.method} ${req.url} (no route)`);
        stsError(
            res,
            400,
            "InvalidAction",
            `fake credential services: no route ${req.method} ${req.url}`
        );
    }

    const { port } = server;
    const url = `http://127.0.0.1:${port}`;
    return {
        url,
        containerUri: `${url}/container-credentials`,
        calls,
        close: () => server.close(),
    };
}

function stsError(res: ServerResponse, status: number, code: string, message: string): void {
    res.writeHead(status, { "content-type": "text/xml" }).end(
        `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>fake-request</RequestId></ErrorResponse>`
    );
}
