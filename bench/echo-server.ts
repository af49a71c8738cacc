/**
 * The ceiling for the benchmark: a bare Fastify server that echoes the JSON body it receives
 * (POST /echo) or a fixed small JSON object (GET /echo), with no database and no validation.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.post('/echo', async (request) => request.body);
app.get('/echo', async () => ({ success: true, code: 'SUCCESS', data: { status: 'PENDING' } }));
const port = Number(process.argv[2] ?? 0);
const address = await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
