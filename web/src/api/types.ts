/**
 * The types of a dashboard API route, read from the generated schema (schema.d.ts, from the
 * server's /openapi.json): what its query takes, what its body takes, and the `data` of its
 * success envelope. The hooks (hooks/api/) name their parameters and results with these, so a
 * change of the API shows up as a type error in the app, never as a hand-written interface
 * drifting away from it.
 */
import type { paths } from './schema';

/** An HTTP method of a route, as the schema names it. */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The operation of `path` for `method`. */
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The first success answer (200, 201) of an operation's responses. */
type SuccessOf<R> = R extends { 200: infer A } ? A : R extends { 201: infer A } ? A : never;

/** The JSON body of an answer. */
type JsonOf<A> = A extends { content: { 'application/json': infer J } } ? J : never;

/** The query parameters of a route (an empty object type when it takes none). */
export type ApiQuery<P extends keyof paths, M extends Method = 'get'> = NonNullable<Operation<P, M> extends { parameters: { query?: infer Q } } ? Q : never>;

/** The path parameters of a route. */
export type ApiPath<P extends keyof paths, M extends Method = 'get'> = Operation<P, M> extends { parameters: { path: infer T } } ? T : never;

/** The JSON body a route takes. */
export type ApiBody<P extends keyof paths, M extends Method> = JsonOf<NonNullable<Operation<P, M> extends { requestBody?: infer B } ? B : never>>;

/** The `data` of a route's success envelope. */
export type ApiData<P extends keyof paths, M extends Method = 'get'> = JsonOf<SuccessOf<Operation<P, M>['responses']>> extends { data: infer D } ? D : never;
