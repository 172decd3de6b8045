def handler(event, context):
    return "Hello world!"
