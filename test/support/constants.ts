/** Fixed values the test suite shares. */
export const TEST_PASSWORD = 'correct horse battery staple';
export const TEST_BASE_URL = 'http://localhost:4000';
export const TEST_USER_AGENT = 'addon-kit-tests/1.0';
/** A fixed 32-byte key (base64) and session secret: test data only. */
export const TEST_ENCRYPTION_KEY = { id: 'test1', key: Buffer.alloc(32, 7).toString('base64') };
export const TEST_SESSION_SECRET = 'test-session-secret-test-session-secret-0123456789';
