/**
 * The operation the fault suite's load sends to test/support/app-server.ts. It returns every item
 * it asks for, so its actual cost equals its estimate and it is never refunded: the tokens a bucket
 * lost are exactly its cost × the requests the store charged.
 */
export const APP_QUERY = '{ items(first: 2) { id } }';
