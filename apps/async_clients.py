"""Framework-neutral client plumbing shared by the async reference apps (aiohttp, tornado, raw ASGI,
Django ASGI); each app keeps its own lazy creation and error answers."""
import asyncio


def mongo_client_class():
    """pymongo's native async client (pymongo >= 4.10); Motor's on an older pymongo, when Motor is installed."""
    try:
        from pymongo import AsyncMongoClient
        return AsyncMongoClient
    except ImportError:
        pass
    try:
        from motor.motor_asyncio import AsyncIOMotorClient
        return AsyncIOMotorClient
    except ImportError:
        return None


async def close_mongo(client):
    """Close a MongoDB client: a coroutine for pymongo's AsyncMongoClient, a plain call for Motor's."""
    closed = client.close()
    if asyncio.iscoroutine(closed):
        await closed
